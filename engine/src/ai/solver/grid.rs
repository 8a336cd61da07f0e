//! A gravity board of at most 64 bits with k = 4, in Pascal Pons' layout: one `u64` of
//! the mover's stones and one of all stones, column-major with a padding bit on top of
//! every column, so the position's key is `mover + all` and a move is one addition.
//!
//! The winning-cell test is the four-in-a-row shift trick: it is written for k = 4 only
//! (other k keep the generic search), but for any width and height that fit 64 bits.

use crate::position::Position;
use crate::rules::Rules;

/// A board's width and height, with the masks derived from them. [`Standard`] is 7×6
/// with everything a constant, so the common board compiles to Pons' fixed-size code;
/// [`Custom`] carries the numbers at run time for every other board that fits.
pub(crate) trait Shape: Copy + Send + Sync + 'static {
    /// Columns.
    fn width(self) -> u32;
    /// Rows.
    fn height(self) -> u32;
    /// The bottom cell of every column.
    fn bottom(self) -> u64;
    /// Every cell (no padding bit).
    fn board(self) -> u64;

    /// Cells on the board.
    #[inline]
    fn cells(self) -> u32 {
        self.width() * self.height()
    }

    /// Bits per column, padding included.
    #[inline]
    fn stride(self) -> u32 {
        self.height() + 1
    }

    /// Every cell of column `col`.
    #[inline]
    fn column(self, col: u32) -> u64 {
        ((1u64 << self.height()) - 1) << (col * self.stride())
    }

    /// Cells where a stone can go now, given all stones `mask`: one per open column.
    #[inline]
    fn possible(self, mask: u64) -> u64 {
        // Adding the bottom row carries into the lowest empty cell of every column; a
        // full column carries into its padding bit, which the board mask drops.
        (mask + self.bottom()) & self.board()
    }

    /// Empty cells where a stone of `stones` would make four in a line, whether or not
    /// they are playable yet.
    #[inline]
    fn winning(self, stones: u64, mask: u64) -> u64 {
        let p = stones;
        // Vertical: only the three below can complete it.
        let mut r = (p << 1) & (p << 2) & (p << 3);
        // Horizontal, then the two diagonals: a cell wins if it has three stones on one
        // side, or two on one side and one on the other. Shifts stay below 64 since
        // height <= 19; a shift through a padding bit meets no stone.
        for d in [self.stride(), self.height(), self.height() + 2] {
            let pair = (p << d) & (p << (2 * d));
            r |= pair & (p << (3 * d));
            r |= pair & (p >> d);
            let pair = (p >> d) & (p >> (2 * d));
            r |= pair & (p << d);
            r |= pair & (p >> (3 * d));
        }
        r & (self.board() ^ mask)
    }
}

/// The 7×6 board of Connect Four, all masks constant.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Standard;

const STANDARD_BOTTOM: u64 = bottom_mask(7, 6);

impl Shape for Standard {
    #[inline]
    fn width(self) -> u32 {
        7
    }
    #[inline]
    fn height(self) -> u32 {
        6
    }
    #[inline]
    fn bottom(self) -> u64 {
        STANDARD_BOTTOM
    }
    #[inline]
    fn board(self) -> u64 {
        STANDARD_BOTTOM * ((1 << 6) - 1)
    }
}

/// Any other gravity board with `width * (height + 1) <= 64`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Custom {
    width: u32,
    height: u32,
    bottom: u64,
    board: u64,
}

impl Custom {
    /// The shape of `rules`; the caller has checked [`fits`].
    pub fn new(rules: Rules) -> Custom {
        let (width, height) = (rules.width(), rules.height());
        let bottom = bottom_mask(width, height);
        Custom {
            width,
            height,
            bottom,
            board: bottom * ((1 << height) - 1),
        }
    }
}

impl Shape for Custom {
    #[inline]
    fn width(self) -> u32 {
        self.width
    }
    #[inline]
    fn height(self) -> u32 {
        self.height
    }
    #[inline]
    fn bottom(self) -> u64 {
        self.bottom
    }
    #[inline]
    fn board(self) -> u64 {
        self.board
    }
}

const fn bottom_mask(width: u32, height: u32) -> u64 {
    let mut mask = 0;
    let mut col = 0;
    while col < width {
        mask |= 1 << (col * (height + 1));
        col += 1;
    }
    mask
}

/// Whether the solver handles `rules`: gravity, four in a row, and a board whose columns
/// (each with its padding bit) fit in 64 bits.
pub(crate) fn fits(rules: Rules) -> bool {
    rules.gravity() && rules.k() == 4 && rules.width() * (rules.height() + 1) <= u64::BITS
}

/// A position: the mover's stones, all stones and the number of stones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Grid {
    /// Stones of the player to move.
    pub current: u64,
    /// All stones.
    pub mask: u64,
    /// Stones on the board.
    pub moves: u32,
}

impl Grid {
    /// The position whose [`Grid::key`] is `key`. A column of `h` stones has a key
    /// between `2^h - 1` (all stones the opponent's) and `2^(h+1) - 2` (all the
    /// mover's), so the highest bit of the key plus one gives `h`.
    #[cfg(test)]
    pub fn from_key<S: Shape>(shape: S, key: u64) -> Grid {
        let stride = shape.stride();
        let (mut current, mut mask) = (0, 0);
        for col in 0..shape.width() {
            let column = (key >> (col * stride)) & ((1 << stride) - 1);
            let marker = 1u64 << (u64::BITS - 1 - (column + 1).leading_zeros());
            let stones = marker - 1;
            mask |= stones << (col * stride);
            current |= (column - stones) << (col * stride);
        }
        Grid {
            current,
            mask,
            moves: mask.count_ones(),
        }
    }

    /// The position of `position`, whose rules [`fits`].
    pub fn of<S: Shape>(shape: S, position: &Position) -> Grid {
        let mut grid = Grid {
            current: 0,
            mask: 0,
            moves: 0,
        };
        for cell in position.landed() {
            grid.play(1 << (u32::from(cell.col) * shape.stride() + u32::from(cell.row)));
        }
        grid
    }

    /// Puts the mover's stone on `mv` (one bit, a possible cell); the other side moves next.
    #[inline]
    pub fn play(&mut self, mv: u64) {
        self.current ^= self.mask;
        self.mask |= mv;
        self.moves += 1;
    }

    /// The grid after the mover drops a stone in `col` (which is not full).
    #[inline]
    pub fn after_column<S: Shape>(mut self, shape: S, col: u32) -> Grid {
        self.play((self.mask + (shape.bottom() & shape.column(col))) & shape.column(col));
        self
    }

    /// A unique key on `width * (height + 1)` bits: the mover's stones plus all stones
    /// sets the lowest empty bit of each column and keeps the mover's stones below it.
    #[inline]
    pub fn key(&self) -> u64 {
        self.current + self.mask
    }

    /// The key of the mirror image (columns reversed): the same position for the
    /// solver, stored once in the opening book.
    pub fn mirror_key<S: Shape>(&self, shape: S) -> u64 {
        let key = self.key();
        let (width, stride) = (shape.width(), shape.stride());
        let column = (1u64 << stride) - 1;
        (0..width).fold(0, |acc, col| {
            acc | ((key >> (col * stride)) & column) << ((width - 1 - col) * stride)
        })
    }

    /// Whether `col` has room.
    #[inline]
    pub fn can_play<S: Shape>(&self, shape: S, col: u32) -> bool {
        shape.possible(self.mask) & shape.column(col) != 0
    }

    /// Cells where the mover would win now.
    #[inline]
    pub fn winning_moves<S: Shape>(&self, shape: S) -> u64 {
        shape.winning(self.current, self.mask) & shape.possible(self.mask)
    }

    /// Whether the mover can win now.
    #[inline]
    pub fn can_win_next<S: Shape>(&self, shape: S) -> bool {
        self.winning_moves(shape) != 0
    }

    /// Whether dropping in `col` wins for the mover.
    #[inline]
    pub fn wins_with<S: Shape>(&self, shape: S, col: u32) -> bool {
        self.winning_moves(shape) & shape.column(col) != 0
    }

    /// Possible cells that do not let the opponent win on the next move: the single
    /// forced block if there is one, none if there are two threats, and never the cell
    /// under an opponent's winning cell. Assumes the mover cannot win now.
    #[inline]
    pub fn non_losing_moves<S: Shape>(&self, shape: S) -> u64 {
        let mut possible = shape.possible(self.mask);
        let theirs = shape.winning(self.current ^ self.mask, self.mask);
        let forced = possible & theirs;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return 0;
            }
            possible = forced;
        }
        possible & !(theirs >> 1)
    }

    /// Move-ordering score of `mv`: how many winning cells the mover has after it.
    #[inline]
    pub fn move_score<S: Shape>(&self, shape: S, mv: u64) -> u32 {
        shape.winning(self.current | mv, self.mask).count_ones()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(moves: &str) -> Grid {
        let position = Position::from_column_digits(Rules::connect4(), moves).expect("legal");
        Grid::of(Standard, &position)
    }

    #[test]
    fn standard_and_custom_agree_on_7x6() {
        let custom = Custom::new(Rules::connect4());
        assert_eq!(custom.bottom(), Standard.bottom());
        assert_eq!(custom.board(), Standard.board());
        assert_eq!(Standard.board().count_ones(), 42);
    }

    #[test]
    fn winning_cells_in_every_direction() {
        // X: a1 b1 c1 (O stacks on them): X wins at d1.
        let g = grid("112233");
        assert!(g.wins_with(Standard, 3));
        assert!(!g.wins_with(Standard, 4));
        // Vertical: X on d1 d2 d3.
        let g = grid("414141");
        assert!(g.wins_with(Standard, 3));
        // Diagonal: X has a1 b2 c3, d1 to d3 are filled, so d4 wins.
        let g = grid("1223433447");
        assert!(g.winning_moves(Standard) & 1 << (3 * 7 + 3) != 0);
    }

    #[test]
    fn non_losing_moves_block_and_avoid_the_cell_below() {
        // O to move, X threatens d1 (a1 b1 c1): the only non-losing move blocks.
        let g = grid("11223");
        assert_eq!(g.non_losing_moves(Standard), 1 << (3 * 7));
        // Two threats: nothing saves O.
        let g = grid("22334");
        assert_eq!(g.winning_moves(Standard), 0);
        assert_eq!(g.non_losing_moves(Standard), 0);
    }

    #[test]
    fn keys_are_unique_per_position() {
        let g = grid("1");
        let m = grid("7");
        assert_eq!(g.mirror_key(Standard), m.key());
        assert_eq!(m.mirror_key(Standard), g.key());
        let g = grid("4453");
        assert_eq!(g.mirror_key(Standard), grid("4435").key());
        assert_eq!(grid("").key(), 0);
        assert_eq!(grid("1").key(), 1);
        assert_ne!(grid("12").key(), grid("21").key());
        for moves in ["", "1", "4453", "2252576253462244111563365343671351441"] {
            let g = grid(moves);
            assert_eq!(Grid::from_key(Standard, g.key()), g, "{moves}");
        }
    }

    #[test]
    fn fits_the_boards_it_should() {
        assert!(fits(Rules::connect4()));
        assert!(fits(Rules::new(8, 7, 4, true).expect("valid")));
        assert!(fits(Rules::new(9, 6, 4, true).expect("valid")));
        assert!(!fits(Rules::new(9, 7, 4, true).expect("valid")));
        assert!(!fits(Rules::new(7, 6, 5, true).expect("valid")));
        assert!(!fits(Rules::new(7, 6, 4, false).expect("valid")));
    }
}
