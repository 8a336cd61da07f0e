//! A game position: the board, whose turn, the move history and the game's status.

use std::fmt;

use crate::renju::{self, Foul};
use crate::rules::{Cell, Move, Player, Rules, Variant};

/// A position of a game under some rules, with its history.
///
/// Win detection is incremental: after each move only the four lines through the new
/// stone are scanned, never the whole board.
#[derive(Debug, Clone)]
pub struct Position {
    rules: Rules,
    /// Stones, indexed `col * height + row`.
    board: Vec<Option<Player>>,
    /// Stones in each column, for gravity.
    heights: Vec<u8>,
    /// Moves played, oldest first.
    history: Vec<Move>,
    /// Where each move's stone landed, parallel to `history`.
    landed: Vec<Cell>,
    /// Cached so `status` is cheap; recomputed from the last move only.
    status: GameStatus,
}

/// The state of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameStatus {
    /// Under way.
    InProgress {
        /// Whose move it is.
        to_move: Player,
    },
    /// A line of k or more.
    Won {
        /// The winner.
        winner: Player,
        /// The cells of the winning line, in order along the line.
        line: Vec<Cell>,
    },
    /// The board is full with no line.
    Drawn,
}

/// Why a move was refused; the position is unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveError {
    /// The game has ended.
    GameOver,
    /// The cell or column is outside the board.
    OutOfBoard,
    /// The cell already holds a stone.
    Occupied,
    /// The column is full.
    ColumnFull,
    /// A cell given where the rules want a column, or the reverse.
    WrongKind,
    /// Renju forbids X this cell.
    Forbidden(Foul),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MoveError::Forbidden(foul) => {
                return write!(f, "renju forbids X {}", foul.describe());
            }
            MoveError::GameOver => "the game is over",
            MoveError::OutOfBoard => "that move is outside the board",
            MoveError::Occupied => "that cell is already taken",
            MoveError::ColumnFull => "that column is full",
            MoveError::WrongKind => {
                "wrong kind of move: these rules take a cell without gravity, a column with it"
            }
        })
    }
}

impl std::error::Error for MoveError {}

/// The four line directions (column step, row step): vertical, horizontal and the two diagonals.
const DIRECTIONS: [(i32, i32); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

impl Position {
    /// The empty board.
    pub fn new(rules: Rules) -> Position {
        Position {
            rules,
            board: vec![None; rules.cells() as usize],
            heights: vec![0; rules.width() as usize],
            history: Vec::new(),
            landed: Vec::new(),
            status: GameStatus::InProgress { to_move: Player::X },
        }
    }

    /// Plays `moves` from the empty board.
    ///
    /// # Errors
    /// The first illegal move's error.
    pub fn from_moves(rules: Rules, moves: &[Move]) -> Result<Position, MoveError> {
        let mut position = Position::new(rules);
        for &mv in moves {
            position.try_play(mv)?;
        }
        Ok(position)
    }

    /// Plays a sequence of 1-based column digits, `"4453"`, as in Pascal Pons' Connect Four
    /// test data; the rules must have gravity and at most 9 columns.
    ///
    /// # Errors
    /// [`MoveError::WrongKind`] for a character that is not a digit 1–9 or rules without
    /// gravity, else the first illegal move's error.
    pub fn from_column_digits(rules: Rules, digits: &str) -> Result<Position, MoveError> {
        if !rules.gravity() {
            return Err(MoveError::WrongKind);
        }
        let mut position = Position::new(rules);
        for ch in digits.chars() {
            let col = match ch.to_digit(10) {
                Some(d @ 1..=9) => d - 1,
                _ => return Err(MoveError::WrongKind),
            };
            // col <= 8.
            position.try_play(Move::Column(col as u8))?;
        }
        Ok(position)
    }

    /// The rules.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    fn index(&self, cell: Cell) -> Option<usize> {
        let (col, row) = (u32::from(cell.col), u32::from(cell.row));
        (col < self.rules.width() && row < self.rules.height())
            .then(|| (col * self.rules.height() + row) as usize)
    }

    /// The stone on a cell, if any (`None` also for a cell outside the board).
    pub fn get(&self, cell: Cell) -> Option<Player> {
        self.index(cell).and_then(|i| self.board[i])
    }

    /// The player whose turn it is (also after the game ended: the one who would move).
    pub fn to_move(&self) -> Player {
        if self.history.len().is_multiple_of(2) {
            Player::X
        } else {
            Player::O
        }
    }

    /// Moves played so far.
    pub fn ply(&self) -> usize {
        self.history.len()
    }

    /// The game's status.
    pub fn status(&self) -> GameStatus {
        self.status.clone()
    }

    /// Whether the game is still under way.
    pub fn is_over(&self) -> bool {
        !matches!(self.status, GameStatus::InProgress { .. })
    }

    /// The legal moves, empty when the game is over.
    ///
    /// Without gravity the cells column by column from `a1` (under renju, not those
    /// forbidden to X when X is to move); with gravity the columns that are not full,
    /// from the left.
    pub fn legal_moves(&self) -> Vec<Move> {
        if self.is_over() {
            return Vec::new();
        }
        let (width, height) = (self.rules.width() as u8, self.rules.height() as u8);
        if self.rules.gravity() {
            (0..width)
                .filter(|&c| self.heights[usize::from(c)] < height)
                .map(Move::Column)
                .collect()
        } else {
            let fouls = if self.rules.variant() == Variant::Renju && self.to_move() == Player::X {
                renju::fouls(self)
            } else {
                Vec::new()
            };
            (0..width)
                .flat_map(|col| (0..height).map(move |row| Cell { col, row }))
                .filter(|&cell| self.get(cell).is_none())
                .filter(|&cell| !fouls.iter().any(|&(c, _)| c == cell))
                .map(Move::Cell)
                .collect()
        }
    }

    /// Where `mv` would land, or why it is illegal.
    pub fn landing_cell(&self, mv: Move) -> Result<Cell, MoveError> {
        if self.is_over() {
            return Err(MoveError::GameOver);
        }
        match (mv, self.rules.gravity()) {
            (Move::Cell(cell), false) => {
                let index = self.index(cell).ok_or(MoveError::OutOfBoard)?;
                if self.board[index].is_some() {
                    return Err(MoveError::Occupied);
                }
                if self.rules.variant() == Variant::Renju
                    && self.to_move() == Player::X
                    && let Some(foul) = renju::foul(self, cell)
                {
                    return Err(MoveError::Forbidden(foul));
                }
                Ok(cell)
            }
            (Move::Column(col), true) => {
                let height = *self
                    .heights
                    .get(usize::from(col))
                    .ok_or(MoveError::OutOfBoard)?;
                if u32::from(height) >= self.rules.height() {
                    return Err(MoveError::ColumnFull);
                }
                Ok(Cell { col, row: height })
            }
            _ => Err(MoveError::WrongKind),
        }
    }

    /// Plays a move for the player to move and returns the cell where the stone landed.
    ///
    /// # Errors
    /// [`MoveError`] when illegal; the position is then unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use inarow_engine::{Cell, GameStatus, Move, MoveError, Player, Position, Rules};
    ///
    /// // With gravity a move names a column and the stone falls to its lowest empty cell.
    /// let mut position = Position::new(Rules::connect4());
    /// assert_eq!(position.try_play(Move::Column(3)), Ok(Cell { col: 3, row: 0 }));
    /// assert_eq!(position.try_play(Move::Column(3)), Ok(Cell { col: 3, row: 1 }));
    /// assert_eq!(position.get(Cell { col: 3, row: 0 }), Some(Player::X));
    ///
    /// // An illegal move is an error and leaves the position as it was.
    /// let cell = Move::Cell(Cell { col: 0, row: 0 });
    /// assert_eq!(position.try_play(cell), Err(MoveError::WrongKind));
    /// assert_eq!(position.try_play(Move::Column(7)), Err(MoveError::OutOfBoard));
    /// assert_eq!(position.ply(), 2);
    ///
    /// // Without gravity a move names a cell; three in a row wins tic-tac-toe.
    /// let mut position = Position::new(Rules::tictactoe());
    /// for (col, row) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
    ///     position.try_play(Move::Cell(Cell { col, row }))?;
    /// }
    /// let taken = Move::Cell(Cell { col: 1, row: 1 });
    /// assert_eq!(position.try_play(taken), Err(MoveError::Occupied));
    /// position.try_play(Move::Cell(Cell { col: 0, row: 2 }))?;
    /// assert!(matches!(position.status(), GameStatus::Won { winner: Player::X, .. }));
    /// let late = Move::Cell(Cell { col: 2, row: 2 });
    /// assert_eq!(position.try_play(late), Err(MoveError::GameOver));
    /// # Ok::<(), MoveError>(())
    /// ```
    pub fn try_play(&mut self, mv: Move) -> Result<Cell, MoveError> {
        let cell = self.landing_cell(mv)?;
        let player = self.to_move();
        let index = self
            .index(cell)
            .expect("landing_cell only returns cells on the board");
        self.board[index] = Some(player);
        self.heights[usize::from(cell.col)] += 1;
        self.history.push(mv);
        self.landed.push(cell);
        self.status = self.status_after(cell, player);
        Ok(cell)
    }

    /// The status after `player` put a stone on `cell`: only lines through `cell` are read.
    fn status_after(&self, cell: Cell, player: Player) -> GameStatus {
        let k = self.rules.k() as usize;
        for (dc, dr) in DIRECTIONS {
            let back = self.run(cell, player, -dc, -dr);
            let forward = self.run(cell, player, dc, dr);
            if self.rules.variant().wins(back + 1 + forward, k, player) {
                let start = (
                    i32::from(cell.col) - dc * back as i32,
                    i32::from(cell.row) - dr * back as i32,
                );
                let line = (0..(back + 1 + forward) as i32)
                    .map(|i| Cell {
                        col: (start.0 + dc * i) as u8,
                        row: (start.1 + dr * i) as u8,
                    })
                    .collect();
                return GameStatus::Won {
                    winner: player,
                    line,
                };
            }
        }
        if self.history.len() == self.board.len() {
            GameStatus::Drawn
        } else {
            GameStatus::InProgress {
                to_move: player.opponent(),
            }
        }
    }

    /// How many of `player`'s stones follow `cell` in direction (dc, dr), not counting it.
    fn run(&self, cell: Cell, player: Player, dc: i32, dr: i32) -> usize {
        let (width, height) = (self.rules.width() as i32, self.rules.height() as i32);
        let (mut col, mut row) = (i32::from(cell.col), i32::from(cell.row));
        let mut count = 0;
        loop {
            col += dc;
            row += dr;
            if !(0..width).contains(&col) || !(0..height).contains(&row) {
                return count;
            }
            if self.board[(col * height + row) as usize] != Some(player) {
                return count;
            }
            count += 1;
        }
    }

    /// Takes back the last move.
    pub fn undo(&mut self) -> Option<Move> {
        let mv = self.history.pop()?;
        let cell = self
            .landed
            .pop()
            .expect("landed has one cell per move of history");
        let index = self.index(cell).expect("landed cells are on the board");
        self.board[index] = None;
        self.heights[usize::from(cell.col)] -= 1;
        // No move is ever played after the end, so the game was under way before this one.
        self.status = GameStatus::InProgress {
            to_move: self.to_move(),
        };
        Some(mv)
    }

    /// The moves played, oldest first.
    pub fn history(&self) -> &[Move] {
        &self.history
    }

    /// The cells where the stones of [`Position::history`] landed, oldest first.
    pub fn landed(&self) -> &[Cell] {
        &self.landed
    }

    /// The cell of the last stone placed.
    pub fn last_cell(&self) -> Option<Cell> {
        self.landed.last().copied()
    }
}

/// The board as text, top row first, with row numbers on the left and column letters
/// below; `X`, `O`, and `.` for an empty cell.
impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (width, height) = (self.rules.width() as u8, self.rules.height() as u8);
        let label = if height >= 10 { 2 } else { 1 };
        for row in (0..height).rev() {
            write!(f, "{:>label$}", u32::from(row) + 1)?;
            for col in 0..width {
                let stone = match self.get(Cell { col, row }) {
                    Some(Player::X) => 'X',
                    Some(Player::O) => 'O',
                    None => '.',
                };
                write!(f, " {stone}")?;
            }
            writeln!(f)?;
        }
        write!(f, "{:>label$}", "")?;
        for col in 0..width {
            write!(f, " {}", char::from(b'a' + col))?;
        }
        writeln!(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(text: &str) -> Cell {
        match Rules::gomoku().parse_move(text) {
            Ok(Move::Cell(cell)) => cell,
            other => panic!("not a cell: {other:?}"),
        }
    }

    fn play_all(rules: Rules, moves: &str) -> Position {
        let mut position = Position::new(rules);
        for text in moves.split_whitespace() {
            let mv = rules.parse_move(text).expect("valid notation");
            position.try_play(mv).expect("legal move");
        }
        position
    }

    #[test]
    fn tictactoe_win_with_line_in_order() {
        let position = play_all(Rules::tictactoe(), "a1 b1 b2 c1 c3");
        assert_eq!(
            position.status(),
            GameStatus::Won {
                winner: Player::X,
                line: vec![cell("a1"), cell("b2"), cell("c3")],
            }
        );
        assert_eq!(position.legal_moves(), vec![]);
        assert_eq!(position.to_move(), Player::O);
        assert_eq!(position.last_cell(), Some(cell("c3")));
    }

    #[test]
    fn anti_diagonal_and_overline() {
        let position = play_all(Rules::tictactoe(), "c1 a1 b2 b1 a3");
        let GameStatus::Won { winner, line } = position.status() else {
            panic!("expected a win");
        };
        assert_eq!(winner, Player::X);
        assert_eq!(line, vec![cell("a3"), cell("b2"), cell("c1")]);
        // Gomoku: six in a row also wins, and the whole line is reported.
        let position = play_all(Rules::gomoku(), "a1 a2 b1 b2 c1 c2 e1 e2 f1 f2 d1");
        let GameStatus::Won { winner, line } = position.status() else {
            panic!("expected a win");
        };
        assert_eq!(winner, Player::X);
        assert_eq!(line.len(), 6);
        assert_eq!(line[0], cell("a1"));
        assert_eq!(line[5], cell("f1"));
    }

    #[test]
    fn draw_and_undo() {
        let mut position = play_all(Rules::tictactoe(), "a1 b2 c3 b1 b3 a3 c1 c2 a2");
        assert_eq!(position.status(), GameStatus::Drawn);
        assert_eq!(
            position.try_play(Move::Cell(cell("a1"))),
            Err(MoveError::GameOver)
        );
        assert_eq!(position.undo(), Some(Move::Cell(cell("a2"))));
        assert_eq!(
            position.status(),
            GameStatus::InProgress { to_move: Player::X }
        );
        assert_eq!(position.legal_moves(), vec![Move::Cell(cell("a2"))]);
        while position.undo().is_some() {}
        assert_eq!(position.ply(), 0);
        assert_eq!(position.legal_moves().len(), 9);
        assert_eq!(position.undo(), None);
    }

    #[test]
    fn gravity_drops_and_fills() {
        let rules = Rules::connect4();
        let mut position = Position::new(rules);
        for row in 0..6 {
            assert_eq!(position.try_play(Move::Column(0)), Ok(Cell { col: 0, row }));
        }
        let before = position.to_string();
        assert_eq!(
            position.try_play(Move::Column(0)),
            Err(MoveError::ColumnFull)
        );
        assert_eq!(
            position.try_play(Move::Column(7)),
            Err(MoveError::OutOfBoard)
        );
        assert_eq!(
            position.try_play(Move::Cell(cell("b1"))),
            Err(MoveError::WrongKind)
        );
        assert_eq!(position.to_string(), before);
        assert_eq!(position.ply(), 6);
        assert_eq!(position.legal_moves().len(), 6);
        let win = Position::from_column_digits(rules, "4455667").expect("legal");
        assert_eq!(
            win.status(),
            GameStatus::Won {
                winner: Player::X,
                line: vec![cell("d1"), cell("e1"), cell("f1"), cell("g1")],
            }
        );
        assert_eq!(
            Position::from_column_digits(rules, "48").err(),
            Some(MoveError::OutOfBoard)
        );
        assert!(Position::from_column_digits(Rules::tictactoe(), "1").is_err());
    }

    #[test]
    fn illegal_moves_leave_the_position_unchanged() {
        let mut position = play_all(Rules::tictactoe(), "b2");
        let before = (
            position.to_string(),
            position.history().to_vec(),
            position.status(),
        );
        let cases = [
            (Move::Cell(cell("b2")), MoveError::Occupied),
            (Move::Cell(cell("d1")), MoveError::OutOfBoard),
            (Move::Cell(cell("a4")), MoveError::OutOfBoard),
            (Move::Column(0), MoveError::WrongKind),
        ];
        for (mv, error) in cases {
            assert_eq!(position.try_play(mv), Err(error));
            let after = (
                position.to_string(),
                position.history().to_vec(),
                position.status(),
            );
            assert_eq!(after, before);
        }
        assert_eq!(
            Position::from_moves(
                Rules::tictactoe(),
                &[Move::Cell(cell("a1")), Move::Cell(cell("a1"))]
            )
            .expect_err("occupied"),
            MoveError::Occupied
        );
    }

    #[test]
    fn display_has_coordinates() {
        let position = play_all(Rules::tictactoe(), "a1 b2 c3");
        assert_eq!(position.to_string(), "3 . . X\n2 . O .\n1 X . .\n  a b c\n");
        let big = Position::new(Rules::new(2, 10, 2, false).expect("valid"));
        let text = big.to_string();
        assert!(text.starts_with("10 . .\n 9 . .\n"), "{text}");
        assert!(text.ends_with("   a b\n"), "{text}");
    }

    #[test]
    fn k_one_wins_at_once() {
        let rules = Rules::new(2, 2, 1, false).expect("valid");
        let position = play_all(rules, "b1");
        assert_eq!(
            position.status(),
            GameStatus::Won {
                winner: Player::X,
                line: vec![cell("b1")],
            }
        );
    }
}
