//! Drawing the lobby and the game screen from the app's state. Only draws: no I/O, no state
//! changes. The board geometry lives in `layout`, shared with the mouse handling; the words
//! for seats and statuses in `words`, shared with plain mode.

use inarow_protocol::{
    ClockState, GameStatus, Mark, MoveAnalysis, MoveValue, RoomSnapshot, RoomSummary,
};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget, Wrap};

use crate::app::{App, Input, Screen};
use crate::board;
use crate::form::CreateForm;
use crate::layout::{GUTTER, GameLayout, cell_origin, game_layout};
use crate::session::Link;
use crate::words::{self, EMPTY_SEAT, SeatWords};

/// The colour of a mark's stones.
pub fn mark_style(mark: Mark) -> Style {
    match mark {
        Mark::X => Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
        Mark::O => Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
    }
}

/// The style of the winning line's cells.
pub fn winning_style() -> Style {
    Style::new()
        .bg(Color::Green)
        .fg(Color::Black)
        .add_modifier(Modifier::BOLD)
}

/// Estimates shown on the board, best first: more would cover a big board in guesses.
const BOARD_ESTIMATES: usize = 3;

/// The style of a hint on the board and in the hints pane.
fn value_style(value: MoveValue) -> Style {
    match value {
        MoveValue::Win { .. } => Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
        MoveValue::Draw => Style::new().fg(Color::Blue).add_modifier(Modifier::BOLD),
        MoveValue::Loss { .. } => Style::new().fg(Color::Red),
        MoveValue::Estimate { .. } => Style::new().fg(Color::Magenta),
    }
}

/// A hint in the pane's few characters: `c:W3`, `a1:=`, `b2:L6`, `d:+35`.
fn value_token(entry: &MoveAnalysis) -> String {
    let value = match entry.value {
        MoveValue::Win { plies } => format!("W{plies}"),
        MoveValue::Loss { plies } => format!("L{plies}"),
        MoveValue::Draw => "=".to_owned(),
        MoveValue::Estimate { score } => format!("{score:+}"),
    };
    format!("{}:{value}", entry.mv)
}

/// The background that marks the last stone placed.
pub const LAST_MOVE_BG: Color = Color::DarkGray;

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    match (&app.screen, &app.room) {
        (Screen::Game, Some(room)) => draw_game(frame.buffer_mut(), area, app, room),
        _ => draw_lobby(frame.buffer_mut(), area, app),
    }
}

fn link_span(app: &App) -> Span<'static> {
    match &app.session.link {
        Link::Connecting => Span::styled("connecting…", Style::new().fg(Color::Yellow)),
        Link::Online => Span::styled("online", Style::new().fg(Color::Green)),
        Link::Reconnecting { .. } => Span::styled(
            "reconnecting…",
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        ),
    }
}

fn title_line(left: String, app: &App, width: u16) -> Line<'static> {
    let right = link_span(app);
    let pad =
        usize::from(width).saturating_sub(left.chars().count() + right.content.chars().count() + 1);
    Line::from(vec![
        Span::styled(left, Style::new().add_modifier(Modifier::BOLD)),
        Span::raw(" ".repeat(pad)),
        right,
        Span::raw(" "),
    ])
}

/// The message line: the typed prompt, or the latest message, or the connection trouble.
fn message_line(app: &App) -> Line<'static> {
    match &app.input {
        Input::Move(text) => Line::from(vec![
            Span::styled("move: ", Style::new().add_modifier(Modifier::BOLD)),
            Span::raw(format!(":{text}_")),
            Span::styled(
                "  (Enter to play, Esc to cancel)",
                Style::new().fg(Color::DarkGray),
            ),
        ]),
        Input::Code(text) => Line::from(vec![
            Span::styled("invite code: ", Style::new().add_modifier(Modifier::BOLD)),
            Span::raw(format!("{text}_")),
            Span::styled(
                "  (Enter to join, Esc to cancel)",
                Style::new().fg(Color::DarkGray),
            ),
        ]),
        _ => match (&app.message, &app.session.link) {
            (Some(m), _) => Line::styled(m.clone(), Style::new().fg(Color::LightRed)),
            (None, Link::Reconnecting { reason, retry_in }) => Line::styled(
                format!(
                    "reconnecting… ({reason}; retrying in {:.1}s)",
                    retry_in.as_secs_f32()
                ),
                Style::new().fg(Color::Red),
            ),
            _ => Line::default(),
        },
    }
}

fn help_line(text: &str) -> Line<'static> {
    Line::styled(
        text.to_owned(),
        Style::new().fg(Color::Black).bg(Color::Gray),
    )
}

fn draw_game(buf: &mut Buffer, area: Rect, app: &App, room: &RoomSnapshot) {
    let layout = game_layout(area, &room.rules);
    let title = format!(
        " inarow · {} · {} · game {}{}{}",
        room.id,
        words::rules_label(&room.rules),
        room.game,
        if room.private { " · private" } else { "" },
        if room.hints { " · hints" } else { "" }
    );
    Paragraph::new(title_line(title, app, area.width)).render(layout.title, buf);
    draw_board(buf, &layout, app, room);
    draw_side(buf, layout.side, app, room);
    Paragraph::new(Line::styled(
        app.status_line(),
        Style::new().add_modifier(Modifier::BOLD),
    ))
    .render(layout.status, buf);
    Paragraph::new(message_line(app)).render(layout.message, buf);
    // A player in a game under way may ask for a takeback or a draw (u, d); otherwise a
    // rematch is what r is for. One line of 80 columns holds either, not both.
    let asks = if app.my_seat().is_some() && matches!(room.status, GameStatus::Playing { .. }) {
        "u/d undo/draw"
    } else {
        "r rematch"
    };
    let help = match app.input {
        Input::Chat(_) => {
            "type a message (/name NEW renames you) · Enter send · Esc cancel".to_owned()
        }
        // With gravity a digit drops a stone in its column: say so, it is the quickest way.
        _ if room.rules.gravity => format!(
            "←→ · 1-{} or Enter drop · ? hints · c chat · {asks} · f resign · q leave",
            room.rules.width.min(9)
        ),
        _ => format!("hjkl · Enter play · :b2 · ? hints · c chat · {asks} · f resign · q leave"),
    };
    Paragraph::new(help_line(&help)).render(layout.help, buf);
}

/// What the board shows besides its stones, the last move and the winning line: the
/// player's cursor, a falling stone and hints on empty cells. A replay shows none of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoardMarks {
    /// The cell under the cursor, drawn reversed.
    pub cursor: Option<(u32, u32)>,
    /// With gravity, the cursor's column, whose letter is drawn reversed.
    pub column: Option<u32>,
    /// The stone falling down a column.
    pub drop: Option<crate::app::Drop>,
    /// Hint values drawn on the empty cells they name.
    pub hints: Vec<((u32, u32), MoveValue)>,
}

fn draw_board(buf: &mut Buffer, layout: &GameLayout, app: &App, room: &RoomSnapshot) {
    let playing = matches!(room.status, GameStatus::Playing { .. });
    let show_cursor = app.input == Input::Keys && app.my_seat().is_some() && playing;
    let cursor_cell = if room.rules.gravity {
        board::landing_row(room, app.cursor.0).map(|row| (app.cursor.0, row))
    } else {
        Some(app.cursor)
    };
    // Proven values on every cell they belong to, estimates only on the best few.
    let hints: Vec<((u32, u32), MoveValue)> = app
        .current_hints()
        .map(|h| {
            let mut estimates = 0;
            h.cells(&room.rules)
                .into_iter()
                .filter(|(_, m)| {
                    let estimate = matches!(m.value, MoveValue::Estimate { .. });
                    estimates += usize::from(estimate);
                    !estimate || estimates <= BOARD_ESTIMATES
                })
                .map(|(cell, m)| (cell, m.value))
                .collect()
        })
        .unwrap_or_default();
    let marks = BoardMarks {
        cursor: cursor_cell.filter(|_| show_cursor),
        column: (show_cursor && room.rules.gravity).then_some(app.cursor.0),
        drop: app.drop,
        hints,
    };
    draw_stones(buf, layout, room, &marks);
}

/// Draws a snapshot's board into the layout's board area: row numbers, stones, the last
/// move, the winning line, column letters and the `marks` on top.
pub fn draw_stones(buf: &mut Buffer, layout: &GameLayout, room: &RoomSnapshot, marks: &BoardMarks) {
    let rules = &room.rules;
    let area = layout.board;
    let winning = board::winning_cells(room);
    let last = board::last_cell(room);
    let bottom = area.bottom();
    for top in 0..rules.height {
        let (_, y) = cell_origin(layout, rules, 0, top);
        if y >= bottom {
            break;
        }
        let label = format!("{:>2} ", rules.height - top);
        buf.set_stringn(
            area.x,
            y,
            label,
            usize::from(GUTTER),
            Style::new().fg(Color::DarkGray),
        );
        for col in 0..rules.width {
            let (x, y) = cell_origin(layout, rules, col, top);
            if x >= area.right() {
                break;
            }
            let mut stone = board::stone_at(room, col, top);
            if let Some(drop) = marks.drop {
                if drop.col == col && top == drop.target && drop.row < drop.target {
                    stone = None;
                } else if drop.col == col && top == drop.row && drop.row < drop.target {
                    stone = Some(drop.mark);
                }
            }
            let hint = marks.hints.iter().find(|(cell, _)| *cell == (col, top));
            let (symbol, mut style) = match (stone, hint) {
                (Some(m), _) => (m.to_string(), mark_style(m)),
                (None, Some((_, value))) => {
                    (words::value_glyph(*value).to_string(), value_style(*value))
                }
                (None, None) => ("·".to_owned(), Style::new().fg(Color::DarkGray)),
            };
            let settled = marks.drop.is_none_or(|d| d.row >= d.target);
            if last == Some((col, top)) && settled {
                style = style.bg(LAST_MOVE_BG).add_modifier(Modifier::UNDERLINED);
            }
            if winning.contains(&(col, top)) {
                style = winning_style();
            }
            if marks.cursor == Some((col, top)) {
                style = style.add_modifier(Modifier::REVERSED);
            }
            buf.set_string(x, y, symbol, style);
        }
    }
    let (_, y) = cell_origin(layout, rules, 0, rules.height);
    if y < bottom {
        for col in 0..rules.width {
            let (x, _) = cell_origin(layout, rules, col, 0);
            if x >= area.right() {
                break;
            }
            let mut style = Style::new().fg(Color::DarkGray);
            if marks.column == Some(col) {
                style = Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD);
            }
            buf.set_string(x, y, board::column_name(col), style);
        }
    }
}

/// One seat's line: mark, its clock in a timed game (reversed while it runs, red when
/// low), who, and their state.
fn seat_line(
    room: &RoomSnapshot,
    mark: Mark,
    mine: Option<Mark>,
    clock: Option<ClockState>,
) -> Line<'static> {
    let seat = room.seats.iter().find(|s| s.mark == mark);
    let words = SeatWords::of(seat.map(|s| &s.occupant), mine == Some(mark));
    let mut spans = vec![Span::styled(format!("{mark} "), mark_style(mark))];
    if let Some(clock) = clock {
        let left = clock.remaining(mark);
        let mut style = Style::new();
        if clock.running == Some(mark) {
            style = style.add_modifier(Modifier::REVERSED | Modifier::BOLD);
            if left < words::LOW_TIME_MS {
                style = style.fg(Color::Red);
            }
        }
        spans.push(Span::styled(
            format!("{:>6}", words::clock_text(left)),
            style,
        ));
        spans.push(Span::raw(" "));
    }
    match words.who {
        None => spans.push(Span::styled(EMPTY_SEAT, Style::new().fg(Color::DarkGray))),
        Some(who) => spans.push(Span::raw(who)),
    }
    if words.you {
        spans.push(Span::raw(" (you)"));
    }
    if words.offline {
        spans.push(Span::styled(" offline", Style::new().fg(Color::Red)));
    }
    if words.thinking {
        spans.push(Span::styled(" thinking…", Style::new().fg(Color::Magenta)));
    }
    if seat.is_some_and(|s| s.rematch) && room.status.is_over() {
        spans.push(Span::styled(" rematch✓", Style::new().fg(Color::Green)));
    }
    Line::from(spans)
}

fn draw_side(buf: &mut Buffer, area: Rect, app: &App, room: &RoomSnapshot) {
    if area.width < 8 {
        return;
    }
    let [seats, moves, chat] = Layout::vertical([
        Constraint::Length(5),
        Constraint::Length(4),
        Constraint::Min(3),
    ])
    .areas(area);
    let mine = app.my_seat();
    let watching = if room.spectators.is_empty() {
        "watching: nobody".to_owned()
    } else {
        format!(
            "watching: {} ({})",
            room.spectators.len(),
            room.spectators.join(", ")
        )
    };
    let clock = app.clock_now();
    // A waiting offer matters more than who watches: it takes that line.
    let third = match words::offer_text(room, mine, true) {
        Some(offer) => Line::styled(offer, Style::new().fg(Color::Yellow)),
        None => Line::styled(watching, Style::new().fg(Color::DarkGray)),
    };
    Paragraph::new(vec![
        seat_line(room, Mark::X, mine, clock),
        seat_line(room, Mark::O, mine, clock),
        third,
    ])
    .block(Block::bordered().title(" Seats "))
    .render(seats, buf);

    let inner_w = usize::from(moves.width.saturating_sub(2)).max(1);
    let inner_h = usize::from(moves.height.saturating_sub(2));
    if let Some(hints) = app.current_hints() {
        // The hints take the moves' place until the position changes: best first, as
        // many as fit.
        let lines = if hints.moves.is_empty() {
            vec![Line::raw("no legal moves")]
        } else {
            hint_lines(&hints.moves, inner_w, inner_h)
        };
        Paragraph::new(lines)
            .block(Block::bordered().title(" Hints: W win · = draw · L loss · ± guess "))
            .render(moves, buf);
    } else {
        let text = numbered_moves(&room.moves);
        let lines = wrap_words(&text, inner_w);
        let shown = lines.len().saturating_sub(inner_h);
        let move_lines: Vec<Line> = lines[shown..]
            .iter()
            .map(|l| Line::raw(l.clone()))
            .collect();
        Paragraph::new(move_lines)
            .block(Block::bordered().title(format!(" Moves ({}) ", room.ply)))
            .render(moves, buf);
    }

    let inner_h = usize::from(chat.height.saturating_sub(2));
    let mut lines: Vec<Line> = Vec::new();
    for c in &app.chat {
        let who = match c.seat {
            Some(m) => Span::styled(format!("{}: ", c.from), mark_style(m)),
            None => Span::styled(format!("{}: ", c.from), Style::new().fg(Color::Gray)),
        };
        lines.push(Line::from(vec![who, Span::raw(c.text.clone())]));
    }
    let input_line = match &app.input {
        Input::Chat(text) => Some(Line::from(vec![
            Span::styled("> ", Style::new().add_modifier(Modifier::BOLD)),
            Span::raw(format!("{text}_")),
        ])),
        _ => None,
    };
    let room_for = inner_h.saturating_sub(usize::from(input_line.is_some()));
    let skip = lines.len().saturating_sub(room_for);
    let mut lines: Vec<Line> = lines.split_off(skip);
    lines.extend(input_line);
    Paragraph::new(lines)
        .block(Block::bordered().title(" Chat (c to talk) "))
        .render(chat, buf);
}

/// The hints as coloured tokens wrapped to `width`, at most `height` lines (the best
/// moves come first, so what does not fit matters least).
fn hint_lines(moves: &[MoveAnalysis], width: usize, height: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let mut spans = Vec::new();
    let mut used = 0;
    for entry in moves {
        let token = value_token(entry);
        let n = token.chars().count();
        if used > 0 && used + 1 + n > width {
            lines.push(Line::from(std::mem::take(&mut spans)));
            used = 0;
        }
        if lines.len() == height {
            return lines;
        }
        if used > 0 {
            spans.push(Span::raw(" "));
            used += 1;
        }
        spans.push(Span::styled(token, value_style(entry.value)));
        used += n;
    }
    if !spans.is_empty() && lines.len() < height {
        lines.push(Line::from(spans));
    }
    lines
}

/// Moves as `1. b2 a1 2. c3 …`.
fn numbered_moves(moves: &[String]) -> String {
    let mut out = String::new();
    for (i, pair) in moves.chunks(2).enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&format!("{}.{}", i + 1, pair.join(" ")));
    }
    out
}

/// Greedy word wrap (the moves pane scrolls to its last lines, which Paragraph cannot do
/// with wrapping on).
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// A seat in the room list: who sits there, `-` when nobody does.
fn seat_summary(room: &RoomSummary, mark: Mark) -> String {
    let seat = room.seats.iter().find(|s| s.mark == mark);
    SeatWords::of(seat.map(|s| &s.occupant), false)
        .who
        .unwrap_or_else(|| "-".to_owned())
}

fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        format!("{text:<width$}")
    } else {
        let mut s: String = text.chars().take(width.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

fn draw_lobby(buf: &mut Buffer, area: Rect, app: &App) {
    let [title, list, message, help] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let left = if app.session.server.is_empty() {
        format!(" inarow lobby · {}", app.name)
    } else {
        format!(" inarow lobby · {} on {}", app.name, app.session.server)
    };
    Paragraph::new(title_line(left, app, area.width)).render(title, buf);

    let header = format!(
        "  {} {} {} {} {} {} {}",
        clip("room", 8),
        clip("name", 16),
        clip("rules", 9),
        clip("X", 10),
        clip("O", 10),
        clip("status", 10),
        "watch"
    );
    let mut lines = vec![Line::styled(
        header,
        Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
    )];
    if app.rooms.is_empty() {
        lines.push(Line::styled(
            "  No public rooms yet: press n to create one, or i to join with an invite code.",
            Style::new().fg(Color::DarkGray),
        ));
    }
    for (i, room) in app.rooms.iter().enumerate() {
        let text = format!(
            "{} {} {} {} {} {} {} {}",
            if i == app.selected { "▸" } else { " " },
            clip(&room.id.0, 8),
            clip(&room.name, 16),
            clip(&words::rules_label(&room.rules), 9),
            clip(&seat_summary(room, Mark::X), 10),
            clip(&seat_summary(room, Mark::O), 10),
            clip(&words::status_phrase(&room.status), 10),
            room.spectators
        );
        let style = if i == app.selected {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            Style::new()
        };
        lines.push(Line::styled(text, style));
    }
    Paragraph::new(lines)
        .block(Block::bordered().title(" Public rooms (refreshed every 3 s) "))
        .render(list, buf);
    Paragraph::new(message_line(app)).render(message, buf);
    let help_text = if app.room.is_some() {
        "↑↓ select · Enter join · w watch · n new · i invite code · g game · q quit"
    } else {
        "↑↓ select · Enter join · w watch · n new · i invite code · r reload · q quit"
    };
    Paragraph::new(help_line(help_text)).render(help, buf);

    if let Input::Create(form) = &app.input {
        draw_form(buf, list, form);
    }
}

fn draw_form(buf: &mut Buffer, area: Rect, form: &CreateForm) {
    let height = CreateForm::FIELDS.len() as u16 + 4;
    let popup = area.centered(Constraint::Length(52), Constraint::Length(height));
    Clear.render(popup, buf);
    let mut lines = Vec::new();
    for (i, name) in CreateForm::FIELDS.iter().enumerate() {
        let focused = i == form.field;
        let text = format!(
            "{} {:<8} ‹ {} ›",
            if focused { "▸" } else { " " },
            name,
            form.value(i)
        );
        let style = if focused {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            Style::new()
        };
        lines.push(Line::styled(text, style));
    }
    lines.push(Line::default());
    lines.push(Line::styled(
        "↑↓ field · ←→ change · Enter create · Esc cancel",
        Style::new().fg(Color::DarkGray),
    ));
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(Block::bordered().title(" New room "))
        .render(popup, buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_wrap_and_moves_number() {
        let moves: Vec<String> = ["b2", "a1", "c3"].iter().map(|s| (*s).to_owned()).collect();
        assert_eq!(numbered_moves(&moves), "1.b2 a1 2.c3");
        assert_eq!(wrap_words("1.b2 a1 2.c3", 7), vec!["1.b2 a1", "2.c3"]);
    }
}
