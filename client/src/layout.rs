//! The game screen's geometry: where the title, board, side panes and status lines go, and
//! the mapping between board cells and screen positions. Pure functions of the terminal
//! size and the rules, shared by the drawing (`ui`) and the mouse handling (`app`).

use inarow_protocol::Rules;
use ratatui::layout::{Constraint, Layout, Rect};

/// Width of the row-number gutter left of the board.
pub const GUTTER: u16 = 3;
/// Columns per board cell: the stone and a space.
pub const CELL_W: u16 = 2;

/// Where the parts of the game screen go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameLayout {
    /// The title bar.
    pub title: Rect,
    /// The board with its coordinates.
    pub board: Rect,
    /// Seats, moves and chat.
    pub side: Rect,
    /// Whose turn it is.
    pub status: Rect,
    /// Messages and the typed-move prompt.
    pub message: Rect,
    /// The keys.
    pub help: Rect,
}

/// Lays out the game screen for a terminal of `area` and a board of `rules`.
pub fn game_layout(area: Rect, rules: &Rules) -> GameLayout {
    let [title, middle, status, message, help] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let board_w = GUTTER + CELL_W * rules.width.min(u32::from(u16::MAX / 4)) as u16 + 1;
    let [board, side] =
        Layout::horizontal([Constraint::Length(board_w), Constraint::Min(0)]).areas(middle);
    GameLayout {
        title,
        board,
        side,
        status,
        message,
        help,
    }
}

/// The screen position of the cell at column `col` and top row `top`.
pub fn cell_origin(layout: &GameLayout, rules: &Rules, col: u32, top: u32) -> (u16, u16) {
    // A blank line above the board when there is room; 19 rows at 24 lines need it all.
    let margin = u16::from(u32::from(layout.board.height) >= rules.height + 2);
    (
        layout.board.x + GUTTER + CELL_W * col as u16,
        layout.board.y + margin + top as u16,
    )
}

/// The cell (column, top row) under the screen position (x, y), if any.
pub fn cell_at(layout: &GameLayout, rules: &Rules, x: u16, y: u16) -> Option<(u32, u32)> {
    let (x0, y0) = cell_origin(layout, rules, 0, 0);
    if x < x0 || y < y0 {
        return None;
    }
    let col = u32::from((x - x0) / CELL_W);
    let top = u32::from(y - y0);
    (col < rules.width && top < rules.height).then_some((col, top))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_and_screen_positions_round_trip() {
        let rules = Rules {
            width: 15,
            height: 15,
            k: 5,
            gravity: false,
        };
        let layout = game_layout(Rect::new(0, 0, 80, 24), &rules);
        for (col, top) in [(0, 0), (14, 14), (7, 3)] {
            let (x, y) = cell_origin(&layout, &rules, col, top);
            assert_eq!(cell_at(&layout, &rules, x, y), Some((col, top)));
            assert_eq!(cell_at(&layout, &rules, x + 1, y), Some((col, top)));
        }
        assert_eq!(cell_at(&layout, &rules, 0, 1), None);
        let (x, y) = cell_origin(&layout, &rules, 14, 14);
        assert_eq!(cell_at(&layout, &rules, x + 2, y), None);
        assert_eq!(cell_at(&layout, &rules, x, y + 1), None);
    }
}
