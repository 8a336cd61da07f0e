// inarow web client: board geometry, notation and the one rule of protocol 2 a client must
// know — how a `moved` event turns the last room snapshot into the next one
// (docs/protocol.md). Pure functions, no DOM, no network.

/** The column letter of a 0-based column index: 0 → "a". */
export function columnName(col) {
  return String.fromCharCode(97 + col);
}

/** The notation of a cell: column letter, then the row counted from 1 at the bottom. */
export function cellName(col, row) {
  return `${columnName(col)}${row + 1}`;
}

/** `{col, row}` (0-based, row 0 at the bottom) of a cell in notation such as "b2". */
export function parseCell(name) {
  const match = /^([a-z])(\d+)$/.exec(String(name).toLowerCase());
  if (!match) return null;
  return { col: match[1].charCodeAt(0) - 97, row: Number(match[2]) - 1 };
}

/** The mark at `{col, row}` of a snapshot: "X", "O" or "." (board rows are top first). */
export function markAt(room, col, row) {
  const line = room.board[room.rules.height - 1 - row] || "";
  return line[col] || ".";
}

/** The moves the player to move may make in `board` (rows top first), in the order
 *  docs/protocol.md gives for `legal_moves`: every empty cell column by column from the
 *  left, each column from the bottom, or with gravity every column that is not full. */
export function legalMoves(rules, board) {
  const moves = [];
  if (rules.gravity) {
    for (let col = 0; col < rules.width; col += 1) {
      if (board[0][col] === ".") moves.push(columnName(col));
    }
    return moves;
  }
  for (let col = 0; col < rules.width; col += 1) {
    for (let row = 0; row < rules.height; row += 1) {
      if (board[rules.height - 1 - row][col] === ".") moves.push(cellName(col, row));
    }
  }
  return moves;
}

/** The snapshot after `moved` (protocol 2): the stone placed, the move appended, ply, last
 *  move, status, legal moves and the AI seats' `thinking` brought up to date. Returns
 *  null when the event does not follow the snapshot (another game, or not the next
 *  event): the caller then asks for a fresh snapshot with `sync`. */
export function applyMoved(room, moved) {
  if (moved.game !== room.game || moved.seq !== room.seq + 1) return null;
  const at = parseCell(moved.cell);
  if (!at || at.col >= room.rules.width || at.row >= room.rules.height) return null;
  const board = room.board.slice();
  const index = room.rules.height - 1 - at.row;
  const line = board[index];
  board[index] = line.slice(0, at.col) + moved.by + line.slice(at.col + 1);
  const playing = moved.status.state === "playing";
  const seats = room.seats.map((seat) =>
    seat.occupant.kind === "ai"
      ? {
          ...seat,
          occupant: { ...seat.occupant, thinking: playing && moved.status.turn === seat.mark },
        }
      : seat,
  );
  return {
    ...room,
    seq: moved.seq,
    board,
    seats,
    moves: [...room.moves, moved.move],
    ply: moved.ply,
    last_move: moved.cell,
    status: moved.status,
    legal_moves: playing ? legalMoves(room.rules, board) : [],
    // The clocks after the move (absent without a clock); a move ends any offer.
    clock: moved.clock,
    offer: undefined,
  };
}

/** Where a stone played in column `col` would land, or null if the column is full. */
export function landingRow(room, col) {
  for (let row = 0; row < room.rules.height; row += 1) {
    if (markAt(room, col, row) === ".") return row;
  }
  return null;
}

/** The move to send for a click or key on `{col, row}`, or null if it is not legal. */
export function moveFor(room, col, row) {
  const move = room.rules.gravity ? columnName(col) : cellName(col, row);
  return room.legal_moves.includes(move) ? move : null;
}

/** The preset name of some rules, or "W×H, k in a row" in words. */
export function rulesLabel(rules) {
  const { width, height, k, gravity } = rules;
  if (width === 3 && height === 3 && k === 3 && !gravity) return "Tic-tac-toe";
  if (width === 7 && height === 6 && k === 4 && gravity) return "Connect Four";
  if (width === 15 && height === 15 && k === 5 && !gravity) return "Gomoku";
  return `${width}×${height}, ${k} in a row${gravity ? ", gravity" : ""}`;
}

/** Room id characters (server/src/lobby.rs): letters and digits without i, l, o, 0, 1. */
const ROOM_CODE = /^[a-hjkmnp-z2-9]{4,32}$/;

/** What the player typed or pasted into the invite field: a room code, an invite link
 *  (`…/#/r/CODE`) or a watch link (`…/#/w/CODE`). Returns `{code, watch}`, or null when it
 *  cannot name a room. */
export function parseInvite(text) {
  const typed = String(text).trim();
  const link = /#\/([rw])\/([A-Za-z0-9]+)\s*$/.exec(typed);
  const code = (link ? link[2] : typed).toLowerCase();
  if (!ROOM_CODE.test(code)) return null;
  return { code, watch: Boolean(link) && link[1] === "w" };
}

/** The board of a kept game (docs/protocol.md, `game`) after its first `ply` moves, as a
 *  room snapshot the board drawing understands: rows top first, the last move, and the
 *  game's result (with its winning line) once every move is on. */
export function replayAt(game, ply) {
  const { width, height } = game.rules;
  const rows = Array.from({ length: height }, () => Array(width).fill("."));
  for (const m of game.moves.slice(0, ply)) {
    const at = parseCell(m.cell);
    if (at && at.col < width && at.row < height) rows[height - 1 - at.row][at.col] = m.by;
  }
  const last = ply > 0 ? game.moves[ply - 1].cell : undefined;
  const end = ply >= game.moves.length;
  return {
    id: `game-${game.game}`,
    rules: game.rules,
    board: rows.map((r) => r.join("")),
    moves: game.moves.slice(0, ply).map((m) => m.move),
    ply,
    legal_moves: [],
    last_move: last,
    seats: [],
    status: end ? game.result : { state: "replay" },
  };
}
