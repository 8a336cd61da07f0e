//! Drawing the replay screen: the game screen's layout and board drawing (`layout`,
//! `ui::draw_stones`) with a side pane of players and moves, the move shown highlighted.
//! Only draws.

use inarow_protocol::Mark;
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

use super::Replay;
use crate::history::{player_label, utc_minute};
use crate::layout::game_layout;
use crate::ui::{BoardMarks, draw_stones, mark_style};
use crate::words;

/// The keys, on the help line.
const HELP: &str = "←→ step · Home/End start/end · q quit";

/// Draws the replay screen.
pub fn draw(frame: &mut Frame, replay: &Replay) {
    let area = frame.area();
    render(frame.buffer_mut(), area, replay);
}

/// Draws the replay screen into `buf`.
pub fn render(buf: &mut Buffer, area: Rect, replay: &Replay) {
    let summary = &replay.record.summary;
    let board = replay.board();
    let layout = game_layout(area, &summary.rules);
    let room = match &summary.room {
        Some(room) => format!("room {room}, game {}", summary.number),
        None => format!("private room, game {}", summary.number),
    };
    let title = format!(
        " inarow · replay of game {} · {} · {room}",
        summary.game,
        words::rules_label(&summary.rules)
    );
    Paragraph::new(Line::styled(
        title,
        Style::new().add_modifier(Modifier::BOLD),
    ))
    .render(layout.title, buf);
    draw_stones(buf, &layout, board, &BoardMarks::default());
    draw_side(buf, layout.side, replay);
    Paragraph::new(Line::styled(
        replay.status_line(),
        Style::new().add_modifier(Modifier::BOLD),
    ))
    .render(layout.status, buf);
    Paragraph::new(Line::styled(
        HELP,
        Style::new().fg(Color::Black).bg(Color::Gray),
    ))
    .render(layout.help, buf);
}

fn draw_side(buf: &mut Buffer, area: Rect, replay: &Replay) {
    if area.width < 8 {
        return;
    }
    let summary = &replay.record.summary;
    let [players, moves] =
        Layout::vertical([Constraint::Length(5), Constraint::Min(3)]).areas(area);
    // In a timed game each player's clock after their last move shown, as the record
    // keeps it (before a side's first move its clock is as the first move left it: that
    // move is free).
    let clock = replay.board().clock;
    let player = |mark: Mark, who: String| {
        let mut spans = vec![Span::styled(format!("{mark} "), mark_style(mark))];
        if let Some(clock) = clock {
            spans.push(Span::raw(format!(
                "{:>6} ",
                crate::words::clock_text(clock.remaining(mark))
            )));
        }
        spans.push(Span::raw(who));
        Line::from(spans)
    };
    Paragraph::new(vec![
        player(Mark::X, player_label(&summary.x)),
        player(Mark::O, player_label(&summary.o)),
        Line::styled(
            format!("ended {} UTC", utc_minute(summary.ended_at)),
            Style::new().fg(Color::DarkGray),
        ),
    ])
    .block(Block::bordered().title(" Players "))
    .render(players, buf);

    // One line per pair of moves, the move shown reversed, scrolled to keep it in view.
    let shown = replay.ply();
    let mut lines: Vec<Line> = Vec::new();
    for (pair, chunk) in replay.moves.chunks(2).enumerate() {
        let mut spans = vec![Span::styled(
            format!("{:>3}. ", pair + 1),
            Style::new().fg(Color::DarkGray),
        )];
        for (j, played) in chunk.iter().enumerate() {
            let ply = pair * 2 + j + 1;
            let style = if ply == shown {
                Style::new().add_modifier(Modifier::REVERSED)
            } else {
                Style::new()
            };
            if j > 0 {
                spans.push(Span::raw(" "));
            }
            // Padded outside the highlight, so columns line up and only the move is lit.
            let pad = 3usize.saturating_sub(played.mv.chars().count());
            spans.push(Span::styled(played.mv.clone(), style));
            spans.push(Span::raw(" ".repeat(pad)));
        }
        lines.push(Line::from(spans));
    }
    let inner = usize::from(moves.height.saturating_sub(2)).max(1);
    let current_line = shown.saturating_sub(1) / 2;
    let skip = (current_line + 1).saturating_sub(inner);
    let lines: Vec<Line> = lines.into_iter().skip(skip).take(inner).collect();
    Paragraph::new(lines)
        .block(Block::bordered().title(format!(" Moves ({}/{}) ", shown, replay.len())))
        .render(moves, buf);
}

#[cfg(test)]
pub(crate) mod tests {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;
    use crate::replay::tests::diagonal;

    /// The replay drawn into a `w` × `h` buffer, and its lines (for the replay's tests).
    pub(crate) fn render_lines_for(replay: &Replay, w: u16, h: u16) -> (Buffer, Vec<String>) {
        render_lines(replay, w, h)
    }

    fn render_lines(replay: &Replay, w: u16, h: u16) -> (Buffer, Vec<String>) {
        let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("test backend");
        terminal
            .draw(|frame| draw(frame, replay))
            .expect("draw into the test backend");
        let buf = terminal.backend().buffer().clone();
        let lines = (0..buf.area.height)
            .map(|y| {
                (0..buf.area.width)
                    .map(|x| buf[(x, y)].symbol())
                    .collect::<String>()
                    .trim_end()
                    .to_owned()
            })
            .collect();
        (buf, lines)
    }

    /// The screen column where `needle` starts in `line` (lines hold box-drawing
    /// characters, so bytes are not columns).
    fn column_of(line: &str, needle: &str) -> u16 {
        let at = line
            .find(needle)
            .unwrap_or_else(|| panic!("{needle:?} in {line:?}"));
        u16::try_from(line[..at].chars().count()).expect("fits the screen")
    }

    #[test]
    fn the_end_of_a_game_shows_its_line_and_result() {
        let replay = Replay::new(diagonal()).expect("a legal game");
        let (buf, lines) = render_lines(&replay, 80, 24);
        assert_eq!(
            lines[0],
            " inarow · replay of game 42 · tictactoe · room k7m2q9xa, game 3"
        );
        assert_eq!(lines[2].split('│').next(), Some(" 3 · · X  "));
        assert_eq!(lines[3].split('│').next(), Some(" 2 O X ·  "));
        assert_eq!(lines[4].split('│').next(), Some(" 1 X · O  "));
        assert_eq!(lines[5].split('└').next(), Some("   a b c  "));
        assert!(
            lines[2].ends_with(
                "│X ann                                                               │"
            )
        );
        assert!(lines[3].contains("│O bob "));
        assert!(lines[4].contains("│ended 2026-11-23 16:21 UTC "));
        assert!(lines[6].contains("┌ Moves (5/5) ─"));
        assert!(lines[7].contains("│  1. b2  a2 "), "{}", lines[7]);
        assert!(lines[9].contains("│  3. c3 "), "{}", lines[9]);
        assert_eq!(
            lines[21],
            "Move 5 of 5: X (ann) played c3 in 2.2s · X won (line a1 b2 c3)"
        );
        assert_eq!(lines[23], "←→ step · Home/End start/end · q quit");
        // The winning line a1, b2, c3 is lit; the other stones are not.
        for (x, y) in [(3, 4), (5, 3), (7, 2)] {
            assert_eq!(
                buf[(x, y)].bg,
                crate::ui::winning_style().bg.expect("a background")
            );
        }
        assert_eq!(buf[(3, 3)].symbol(), "O");
        assert_ne!(
            buf[(3, 3)].bg,
            crate::ui::winning_style().bg.expect("a background")
        );
        let c3 = column_of(&lines[9], "c3");
        assert!(buf[(c3, 9)].modifier.contains(Modifier::REVERSED));
    }

    #[test]
    fn stepping_back_shows_the_board_and_move_of_that_ply() {
        let mut replay = Replay::new(diagonal()).expect("a legal game");
        replay.go_to(2);
        let (buf, lines) = render_lines(&replay, 80, 24);
        assert_eq!(lines[2].split('│').next(), Some(" 3 · · ·  "));
        assert_eq!(lines[3].split('│').next(), Some(" 2 O X ·  "));
        assert_eq!(lines[4].split('│').next(), Some(" 1 · · ·  "));
        assert!(lines[6].contains("┌ Moves (2/5) ─"));
        assert_eq!(lines[21], "Move 2 of 5: O (bob) played a2 in 3.4s");
        // The last stone (a2) is marked as in a live game; no line is lit before the end.
        assert_eq!(buf[(3, 3)].bg, crate::ui::LAST_MOVE_BG);
        assert_eq!(buf[(5, 3)].bg, ratatui::style::Color::Reset);
        let a2 = column_of(&lines[7], "a2");
        assert!(buf[(a2, 7)].modifier.contains(Modifier::REVERSED));
        let b2 = column_of(&lines[7], "b2");
        assert!(!buf[(b2, 7)].modifier.contains(Modifier::REVERSED));
        replay.go_to(0);
        let (_, lines) = render_lines(&replay, 80, 24);
        assert_eq!(lines[21], "Start: 5 moves, → to step through them");
        assert!(lines[6].contains("┌ Moves (0/5) ─"));
    }

    #[test]
    fn long_games_scroll_to_the_move_shown_and_small_screens_do_not_panic() {
        // 40 moves of gomoku down the first columns, no five in a row.
        let mut moves = Vec::new();
        for col in ['a', 'b', 'c', 'd'] {
            for row in 1..=10 {
                moves.push((format!("{col}{row}"), 500));
            }
        }
        // Columns a and c take X and O alternately, b and d as well: nobody gets five.
        let moves: Vec<(&str, u64)> = moves.iter().map(|(m, ms)| (m.as_str(), *ms)).collect();
        let gomoku = inarow_protocol::Rules {
            width: 15,
            height: 15,
            k: 5,
            gravity: false,
        };
        let game = crate::replay::tests::record(
            gomoku,
            &moves,
            inarow_protocol::GameStatus::Resigned { winner: Mark::O },
        );
        let mut replay = Replay::new(game).expect("a legal game");
        let (_, lines) = render_lines(&replay, 80, 24);
        assert!(
            lines.iter().any(|l| l.contains(" 20. ")),
            "the last moves are in view"
        );
        replay.go_to(1);
        let (_, lines) = render_lines(&replay, 80, 24);
        assert!(lines.iter().any(|l| l.contains("  1. a1 ")));
        for (w, h) in [(0, 0), (1, 1), (10, 3), (30, 8)] {
            render_lines(&replay, w, h);
        }
    }
}
