// inarow web client: state, routing (#/ lobby, #/r/CODE join or watch, #/w/CODE watch) and
// drawing. Speaks only the documented protocol (docs/protocol.md) through net.js; game.js
// knows the board.

import { Connection } from "./net.js";
import { applyMoved, columnName, landingRow, markAt, moveFor, rulesLabel } from "./game.js";

const NAME_KEY = "inarow.name";
const ROOMS_KEY = "inarow.rooms";
const LOBBY_REFRESH_MS = 3000;
const CHAT_LINES = 200;

const $ = (id) => document.getElementById(id);

/** Builds an element: h("button", {class: "x", onclick: f}, "text", child). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  el.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

const state = {
  /** Our session id, from `welcome`. */
  me: null,
  /** Room id → { snap, chat: [lines], syncing }. */
  rooms: new Map(),
  /** The public rooms, from `rooms`. */
  lobby: [],
  /** Request id → what it asked, to act on its answer. */
  pending: new Map(),
  /** The board cursor of the room on screen. */
  cursor: { col: 0, row: 0 },
  /** A resign waiting for its confirmation click. */
  confirmResign: false,
  conn: null,
};

// --- routing -------------------------------------------------------------------------

/** What the address asks for: {view: "lobby"} or {view: "room", id, watch}. */
function route() {
  const match = /^#\/([rw])\/([A-Za-z0-9 ]+)$/.exec(decodeURIComponent(location.hash));
  if (!match) return { view: "lobby" };
  return { view: "room", id: match[2].trim().toLowerCase(), watch: match[1] === "w" };
}

function inviteLink(id) {
  return `${location.origin}/#/r/${id}`;
}

function rememberRooms() {
  sessionStorage.setItem(ROOMS_KEY, JSON.stringify([...state.rooms.keys()]));
}

/** Enters the room the address names, unless we are in it already. */
function enterRoute() {
  const r = route();
  if (r.view !== "room" || state.rooms.has(r.id) || !state.me) return;
  if (r.watch) request({ type: "join", room: r.id }, { kind: "watch", room: r.id });
  else request({ type: "join", room: r.id, seat: "any" }, { kind: "join", room: r.id });
}

// --- the connection ------------------------------------------------------------------

function request(message, pending) {
  const id = state.conn.send(message);
  if (pending) state.pending.set(id, pending);
  return id;
}

function notice(text) {
  const el = $("notice");
  el.textContent = text || "";
  el.hidden = !text;
}

function onMessage(msg) {
  const asked = msg.id !== undefined ? state.pending.get(msg.id) : undefined;
  if (msg.id !== undefined) state.pending.delete(msg.id);
  switch (msg.type) {
    case "welcome":
      onWelcome(msg);
      break;
    case "rooms":
      state.lobby = msg.rooms;
      if (route().view === "lobby") drawLobby();
      break;
    case "room":
      onSnapshot(msg.room, asked);
      break;
    case "moved":
      onMoved(msg);
      break;
    case "analysis":
      onAnalysis(msg);
      break;
    case "chat":
      onChat(msg);
      break;
    case "left":
      state.rooms.delete(msg.room);
      rememberRooms();
      break;
    case "error":
      onError(msg, asked);
      break;
    default:
      break; // a newer server's message
  }
}

function onWelcome(msg) {
  state.me = msg.session;
  document.body.dataset.protocol = String(msg.protocol);
  $("who").textContent = `playing as ${localStorage.getItem(NAME_KEY)}`;
  if (!msg.resumed) {
    // A new session is in no room: forget what the old one showed.
    state.rooms.clear();
    rememberRooms();
  }
  const stored = JSON.parse(sessionStorage.getItem(ROOMS_KEY) || "[]");
  const r = route();
  // A resumed session gets a snapshot of each of its rooms right after `welcome`.
  if (msg.resumed && r.view === "room" && stored.includes(r.id)) return draw();
  if (r.view === "lobby") request({ type: "list_rooms" });
  enterRoute();
  draw();
}

function onSnapshot(snap, asked) {
  const known = state.rooms.get(snap.id);
  // A snapshot repeats the current seq when sent to us alone; an older one is stale.
  if (known && snap.seq < known.snap.seq) return;
  const entry = known || { chat: [] };
  entry.snap = snap;
  entry.syncing = false;
  state.rooms.set(snap.id, entry);
  rememberRooms();
  if (asked && asked.kind === "create") {
    location.hash = `#/r/${snap.id}`;
    return;
  }
  if (route().view === "room" && route().id === snap.id) drawRoom();
}

/** Asks for a fresh snapshot after a gap in the room's events (protocol 2 only). */
function resync(entry) {
  if (entry.syncing || state.conn.protocol < 2) return;
  entry.syncing = true;
  request({ type: "sync", room: entry.snap.id });
}

function onMoved(msg) {
  const entry = state.rooms.get(msg.room);
  if (!entry || msg.seq <= entry.snap.seq) return;
  const next = applyMoved(entry.snap, msg);
  if (!next) return resync(entry);
  entry.snap = next;
  if (route().view === "room" && route().id === msg.room) drawRoom();
}

/** Keeps an analysis of a room's position; it shows until the position moves on. */
function onAnalysis(msg) {
  const entry = state.rooms.get(msg.room);
  if (!entry) return;
  entry.hints = msg;
  notice(null);
  if (route().view === "room" && route().id === msg.room) drawRoom();
}

/** The hints of `snap`'s position, by cell: `{text, kind, words}`; empty when there are none. */
function hintsFor(snap) {
  const entry = state.rooms.get(snap.id);
  const hints = entry && entry.hints;
  const cells = new Map();
  if (!hints || hints.game !== snap.game || hints.ply !== snap.ply) return cells;
  for (const m of hints.moves) {
    const hint = {
      win: { text: `W${m.in}`, kind: "win", words: `win in ${m.in}` },
      loss: { text: `L${m.in}`, kind: "loss", words: `loss in ${m.in}` },
      draw: { text: "=", kind: "draw", words: "draw" },
    }[m.value] || { text: m.score >= 0 ? "+" : "−", kind: "guess", words: `estimate ${m.score}` };
    cells.set(m.cell, hint);
  }
  return cells;
}

function onChat(msg) {
  const entry = state.rooms.get(msg.room);
  if (!entry || msg.seq <= entry.snap.seq) return;
  if (msg.seq > entry.snap.seq + 1) resync(entry);
  entry.snap = { ...entry.snap, seq: msg.seq };
  entry.chat.push(msg);
  entry.chat.splice(0, Math.max(0, entry.chat.length - CHAT_LINES));
  if (route().view === "room" && route().id === msg.room) drawChat(entry);
}

function onError(msg, asked) {
  if (asked && asked.kind === "join" && msg.code === "room_full") {
    // Both seats taken: watch instead, as the terminal client does.
    request({ type: "join", room: asked.room }, { kind: "watch", room: asked.room });
    return;
  }
  if (asked && (asked.kind === "join" || asked.kind === "watch") && msg.code === "unknown_room") {
    notice(`There is no room ${asked.room}: it may have closed.`);
    location.hash = "#/";
    return;
  }
  notice(`${msg.message} (${msg.code})`);
}

// --- drawing -------------------------------------------------------------------------

function draw() {
  const r = route();
  const named = Boolean(localStorage.getItem(NAME_KEY));
  $("name-view").hidden = named;
  $("lobby-view").hidden = !named || r.view !== "lobby";
  $("room-view").hidden = !named || r.view !== "room";
  if (!named) return;
  if (r.view === "lobby") drawLobby();
  else drawRoom();
}

function seatLabel(seat) {
  const o = seat.occupant;
  if (o.kind === "empty") return "open";
  if (o.kind === "ai") return `AI ${o.level}`;
  return o.name;
}

function statusWords(status) {
  switch (status.state) {
    case "waiting": return "waiting for a player";
    case "playing": return `${status.turn} to move`;
    case "won": return `${status.winner} won`;
    case "drawn": return "drawn";
    case "resigned": return `${status.winner} won by resignation`;
    default: return status.state;
  }
}

function drawLobby() {
  const list = $("room-list");
  list.replaceChildren(
    ...state.lobby.map((room) => {
      const seats = room.seats.map((s) => `${s.mark}: ${seatLabel(s)}`).join(" · ");
      const open = room.seats.some((s) => s.occupant.kind === "empty");
      return h(
        "li",
        { dataset: { room: room.id } },
        h("span", { class: "what" },
          h("strong", {}, room.name),
          `${rulesLabel(room.rules)} — ${seats} — ${statusWords(room.status)}` +
            (room.spectators ? ` — ${room.spectators} watching` : "")),
        open ? h("a", { href: `#/r/${room.id}`, class: "button join" }, "Join") : null,
        h("a", { href: `#/w/${room.id}`, class: "button secondary watch" }, "Watch"),
      );
    }),
  );
  $("room-empty").hidden = state.lobby.length > 0;
}

function mySeat(snap) {
  const seat = snap.seats.find((s) => s.occupant.kind === "human" && s.occupant.session === state.me);
  return seat ? seat.mark : null;
}

function statusLine(snap, mine) {
  const s = snap.status;
  const name = (mark) => {
    const seat = snap.seats.find((x) => x.mark === mark);
    return seat ? seatLabel(seat) : mark;
  };
  switch (s.state) {
    case "waiting": return "Waiting for a player to take the open seat.";
    case "playing": {
      if (s.turn === mine) return "Your move.";
      const seat = snap.seats.find((x) => x.mark === s.turn);
      const thinking = seat && seat.occupant.kind === "ai" && seat.occupant.thinking ? " (thinking…)" : "";
      return `${name(s.turn)} (${s.turn}) to move${thinking}.`;
    }
    case "won":
      return s.winner === mine ? "You won!" : `${name(s.winner)} (${s.winner}) won.`;
    case "drawn": return "Drawn.";
    case "resigned":
      return s.winner === mine ? "Your opponent resigned: you won." : `${name(s.winner)} (${s.winner}) won by resignation.`;
    default: return s.state;
  }
}

function drawRoom() {
  const r = route();
  const entry = state.rooms.get(r.id);
  const view = $("room-view");
  if (!entry) {
    $("room-title").textContent = `Room ${r.id}`;
    $("room-status").textContent = "Entering…";
    $("board").replaceChildren();
    return;
  }
  const snap = entry.snap;
  const mine = mySeat(snap);
  const st = snap.status;
  Object.assign(view.dataset, {
    room: snap.id,
    game: String(snap.game),
    ply: String(snap.ply),
    state: st.state,
    turn: st.turn || "",
    winner: st.winner || "",
    mine: mine || "",
    moves: snap.moves.join(" "),
  });
  $("room-title").textContent = snap.name;
  $("room-rules").textContent =
    `${rulesLabel(snap.rules)} · game ${snap.game} · move ${snap.ply}` +
    (snap.private ? " · private" : "") +
    (snap.spectators.length ? ` · watching: ${snap.spectators.join(", ")}` : "");
  $("room-status").textContent = statusLine(snap, mine);
  $("moves").textContent = snap.moves.length ? `Moves: ${snap.moves.join(" ")}` : "";
  drawBoard(snap, mine);
  drawSeats(snap, mine);
  drawActions(snap, mine);
  $("invite").replaceChildren(
    h("span", {}, "Invite: "),
    h("a", { href: inviteLink(snap.id), id: "invite-link" }, inviteLink(snap.id)),
  );
  drawChat(entry);
}

function drawBoard(snap, mine) {
  const board = $("board");
  const { width, height, gravity } = snap.rules;
  const hadFocus = board.contains(document.activeElement);
  board.style.setProperty("--w", width);
  board.style.setProperty("--h", height);
  board.classList.toggle("square", !gravity);
  board.setAttribute("aria-label", `${rulesLabel(snap.rules)} board, ${width} by ${height}`);
  const c = state.cursor;
  c.col = Math.min(c.col, width - 1);
  c.row = Math.min(c.row, height - 1);
  const line = new Set(snap.status.line || []);
  const myTurn = snap.status.state === "playing" && snap.status.turn === mine;
  const ghostRow = gravity && myTurn ? landingRow(snap, c.col) : null;
  const hints = hintsFor(snap);
  const cells = [];
  for (let row = height - 1; row >= 0; row -= 1) {
    for (let col = 0; col < width; col += 1) {
      const name = `${columnName(col)}${row + 1}`;
      const mark = markAt(snap, col, row);
      const classes = ["cell"];
      if (mark === "X") classes.push("x");
      if (mark === "O") classes.push("o");
      if (line.has(name)) classes.push("win");
      if (snap.last_move === name) classes.push("last");
      if (myTurn && moveFor(snap, col, row)) classes.push("playable");
      if (ghostRow !== null && col === c.col && row === ghostRow) classes.push("ghost");
      const hint = mark === "." ? hints.get(name) : undefined;
      if (hint) classes.push("hint", `hint-${hint.kind}`);
      const here = col === c.col && row === c.row;
      const words = (mark === "." ? "empty" : mark) + (hint ? `, hint: ${hint.words}` : "");
      cells.push(
        h("button", {
          class: classes.join(" "),
          role: "gridcell",
          tabindex: here ? "0" : "-1",
          "aria-label": `${name}, ${words}${line.has(name) ? ", winning line" : ""}`,
          dataset: { cell: name, col: String(col), row: String(row) },
        }, mark === "." ? (hint ? hint.text : "") : mark),
      );
    }
  }
  board.replaceChildren(...cells);
  if (hadFocus) focusCursor();
}

function focusCursor() {
  const { col, row } = state.cursor;
  const cell = $("board").querySelector(`[data-col="${col}"][data-row="${row}"]`);
  if (cell) cell.focus();
}

function currentRoom() {
  const r = route();
  return r.view === "room" ? state.rooms.get(r.id) : undefined;
}

/** Plays at a cell (its column with gravity) if it is our turn and the move is legal. */
function playAt(col, row) {
  const entry = currentRoom();
  if (!entry) return;
  const snap = entry.snap;
  const mine = mySeat(snap);
  if (!mine) return notice("You are watching: take a seat to play.");
  if (snap.status.state !== "playing" || snap.status.turn !== mine) return notice("It is not your turn.");
  const move = moveFor(snap, col, row);
  if (!move) return notice(snap.rules.gravity ? "That column is full." : "That cell is taken.");
  notice(null);
  request({ type: "play", room: snap.id, ply: snap.ply, move });
}

function drawSeats(snap, mine) {
  const turn = snap.status.state === "playing" ? snap.status.turn : null;
  $("seats").replaceChildren(
    ...snap.seats.map((seat) => {
      const o = seat.occupant;
      let who = seatLabel(seat);
      if (o.kind === "human" && o.session === state.me) who += " (you)";
      if (o.kind === "human" && !o.connected) who += " (disconnected)";
      if (o.kind === "ai" && o.thinking) who += " (thinking…)";
      if (seat.rematch && snap.status.state !== "playing" && snap.status.state !== "waiting") who += " · rematch ✓";
      const buttons = [];
      if (o.kind === "empty") {
        if (!mine) {
          buttons.push(h("button", {
            onclick: () => request({ type: "join", room: snap.id, seat: seat.mark }),
            dataset: { action: `sit-${seat.mark}` },
          }, "Sit here"));
        }
        const level = h("select", { "aria-label": `AI level for ${seat.mark}` },
          h("option", { value: "perfect" }, "perfect"),
          h("option", { value: "medium" }, "medium"),
          h("option", { value: "easy" }, "easy"));
        buttons.push(level, h("button", {
          class: "secondary",
          onclick: () => request({ type: "set_seat", room: snap.id, seat: seat.mark, ai: level.value }),
          dataset: { action: `ai-${seat.mark}` },
        }, "Seat AI"));
      } else if (o.kind === "ai") {
        buttons.push(h("button", {
          class: "secondary",
          onclick: () => request({ type: "set_seat", room: snap.id, seat: seat.mark, ai: null }),
        }, "Remove AI"));
      }
      return h("div", { class: `seat${turn === seat.mark ? " turn" : ""}`, dataset: { seat: seat.mark } },
        h("span", { class: `disc ${seat.mark.toLowerCase()}` }, seat.mark),
        h("span", { class: "who" }, who),
        ...buttons);
    }),
  );
}

function drawActions(snap, mine) {
  const st = snap.status.state;
  const over = st === "won" || st === "drawn" || st === "resigned";
  const buttons = [];
  if (mine && over) {
    const asked = snap.seats.find((s) => s.mark === mine).rematch;
    buttons.push(h("button", {
      disabled: asked,
      onclick: () => request({ type: "rematch", room: snap.id }),
      dataset: { action: "rematch" },
    }, asked ? "Rematch asked" : "Rematch"));
  }
  if (mine && st === "playing") {
    buttons.push(h("button", {
      class: "secondary",
      onclick: () => {
        if (!state.confirmResign) {
          state.confirmResign = true;
          return drawActions(snap, mine);
        }
        state.confirmResign = false;
        request({ type: "resign", room: snap.id });
      },
      dataset: { action: "resign" },
    }, state.confirmResign ? "Really resign?" : "Resign"));
  } else {
    state.confirmResign = false;
  }
  // Spectators may always ask; players when the room allows hints or once the game is over.
  if (!mine || snap.hints || over) {
    buttons.push(h("button", {
      class: "secondary",
      onclick: () => {
        notice("Analysing…");
        request({ type: "analyze", room: snap.id }, { kind: "analyze" });
      },
      dataset: { action: "hint" },
    }, "Hint"));
  }
  buttons.push(h("button", {
    class: "secondary",
    onclick: () => {
      request({ type: "leave", room: snap.id });
      state.rooms.delete(snap.id);
      rememberRooms();
      location.hash = "#/";
    },
    dataset: { action: "leave" },
  }, "Leave room"));
  buttons.push(h("a", { href: "#/", class: "button secondary" }, "Lobby"));
  $("room-actions").replaceChildren(...buttons);
}

function drawChat(entry) {
  const log = $("chat-log");
  const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
  log.replaceChildren(
    ...entry.chat.map((line) =>
      h("li", {}, h("span", { class: "from" }, `${line.from}${line.seat ? ` (${line.seat})` : ""}: `), line.text)),
  );
  if (atBottom) log.scrollTop = log.scrollHeight;
}

// --- input ---------------------------------------------------------------------------

function onBoardKey(event) {
  const entry = currentRoom();
  if (!entry) return;
  const { width, height, gravity } = entry.snap.rules;
  const c = state.cursor;
  const moves = {
    ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1],
    h: [-1, 0], l: [1, 0], k: [0, 1], j: [0, -1],
  };
  if (moves[event.key]) {
    const [dc, dr] = moves[event.key];
    c.col = (c.col + dc + width) % width;
    c.row = (c.row + dr + height) % height;
  } else if (gravity && /^[1-9]$/.test(event.key) && Number(event.key) <= width) {
    c.col = Number(event.key) - 1;
    playAt(c.col, c.row);
  } else {
    return;
  }
  event.preventDefault();
  drawBoard(entry.snap, mySeat(entry.snap));
  focusCursor();
}

function onBoardClick(event) {
  const cell = event.target.closest(".cell");
  if (!cell) return;
  state.cursor = { col: Number(cell.dataset.col), row: Number(cell.dataset.row) };
  playAt(state.cursor.col, state.cursor.row);
}

function onBoardHover(event) {
  const cell = event.target.closest(".cell");
  const entry = currentRoom();
  if (!cell || !entry || !entry.snap.rules.gravity) return;
  const col = Number(cell.dataset.col);
  if (col === state.cursor.col) return;
  state.cursor.col = col;
  drawBoard(entry.snap, mySeat(entry.snap));
}

function customRules() {
  return {
    width: Number($("create-width").value),
    height: Number($("create-height").value),
    k: Number($("create-k").value),
    gravity: $("create-gravity").checked,
  };
}

function seatPlan(value) {
  if (value === "me" || value === "open") return { kind: value };
  return { kind: "ai", level: value };
}

function onCreate(event) {
  event.preventDefault();
  const preset = $("create-rules").value;
  const plan = { X: seatPlan($("create-x").value), O: seatPlan($("create-o").value) };
  if (plan.X.kind === "me" && plan.O.kind === "me") return notice("You can hold only one seat of a room.");
  const message = {
    type: "create_room",
    rules: preset === "custom" ? customRules() : preset,
    seats: plan,
    private: $("create-private").checked,
    hints: $("create-hints").checked,
  };
  const name = $("create-name").value.trim();
  if (name) message.name = name;
  notice(null);
  request(message, { kind: "create" });
}

function start(name) {
  state.conn = new Connection(name, {
    message: onMessage,
    status: (text) => { $("link-status").textContent = text || ""; },
    fatal: (text) => { $("link-status").textContent = ""; notice(text); },
  });
  state.conn.open();
  setInterval(() => {
    if (route().view === "lobby" && state.me && !document.hidden) request({ type: "list_rooms" });
  }, LOBBY_REFRESH_MS);
}

function init() {
  $("name-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = $("name-input").value.trim();
    if (!name) return;
    localStorage.setItem(NAME_KEY, name);
    draw();
    start(name);
  });
  $("create-rules").addEventListener("change", () => {
    $("custom-rules").hidden = $("create-rules").value !== "custom";
  });
  $("create-form").addEventListener("submit", onCreate);
  $("join-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const code = $("join-code").value.trim().toLowerCase();
    if (code) location.hash = `#/r/${code}`;
  });
  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const entry = currentRoom();
    const text = $("chat-input").value;
    if (!entry || !text.trim()) return;
    request({ type: "chat", room: entry.snap.id, text });
    $("chat-input").value = "";
  });
  const board = $("board");
  board.addEventListener("click", onBoardClick);
  board.addEventListener("keydown", onBoardKey);
  board.addEventListener("mouseover", onBoardHover);
  window.addEventListener("hashchange", () => {
    notice(null);
    state.cursor = { col: 0, row: 0 };
    if (route().view === "lobby" && state.me) request({ type: "list_rooms" });
    enterRoute();
    draw();
  });
  const name = localStorage.getItem(NAME_KEY);
  draw();
  if (name) start(name);
  else $("name-input").focus();
}

init();
