// inarow web client: state, routing (#/ lobby, #/r/CODE join or watch, #/w/CODE watch) and
// drawing. Speaks only the documented protocol (docs/protocol.md) through net.js; game.js
// knows the board.

import { Connection } from "./net.js";
import {
  applyMoved, columnName, landingRow, markAt, moveFor, parseInvite, rulesLabel,
} from "./game.js";

const NAME_KEY = "inarow.name";
/** The rooms the session is in, kept per browser (as the session's token is, in net.js)
 *  so that a new tab or a reopened link returns to them. */
const ROOMS_KEY = "inarow.rooms";
/** "on" when the player wants a sound on their turn and at a game's end. */
const SOUND_KEY = "inarow.sound";
const LOBBY_REFRESH_MS = 3000;
/** Statuses of a finished game. */
const OVER = ["won", "drawn", "resigned", "timeout", "agreed", "aborted"];
/** A clock under this is low: shown in red, and (with sound on) it ticks aloud each
 *  second on the player's own clock. The terminal client uses the same figure. */
const LOW_TIME_MS = 10000;
/** How often the running clock is redrawn between the server's figures. */
const CLOCK_TICK_MS = 100;
const CHAT_LINES = 200;
const TITLE = "inarow";

/** The error codes of docs/protocol.md in words; the server's own message follows them
 *  where it says more (which field, which limit). */
const ERROR_WORDS = {
  bad_request: "The server did not understand that request.",
  invalid_name: "That name cannot be used.",
  invalid_rules: "Those rules are not possible.",
  invalid_chat: "That message cannot be sent.",
  unknown_room: "There is no such room: it may have closed.",
  room_full: "Both seats are taken.",
  seat_taken: "Someone else holds that seat.",
  already_seated: "You already hold the other seat of this room.",
  not_in_room: "You are not in that room.",
  not_a_player: "You are watching: take a seat to play.",
  not_your_turn: "It is not your turn.",
  stale_ply: "The position changed before your move arrived; look again.",
  illegal_move: "That move is not possible.",
  game_not_in_progress: "The game is not in progress.",
  game_in_progress: "The game is still going on.",
  rate_limited: "Too fast: wait a moment and try again.",
  hints_off: "Hints are off for the players of this room while the game is on.",
  too_large: "That message is too long.",
  server_full: "The server is full: try again later.",
  too_many_rooms: "Too many rooms are open.",
  too_many_connections: "Too many connections from your address: try again in a minute.",
  too_many_sessions: "Too many sessions from your address.",
  unknown_game: "The server does not keep that game.",
  store_unavailable: "The server could not read its game store: try again later.",
};

/** An error in words: the code's sentence, then the server's detail when it adds one. */
function errorWords(code, message) {
  const words = ERROR_WORDS[code];
  if (!words) return message || "Something went wrong.";
  const detail = String(message || "").trim();
  // Refusals that name a field or a limit say it in the server's message.
  const telling = ["invalid_name", "invalid_rules", "invalid_chat", "illegal_move", "too_many_rooms", "bad_request"];
  return telling.includes(code) && detail ? `${words} (${detail})` : words;
}

export const $ = (id) => document.getElementById(id);

/** Builds an element: h("button", {class: "x", onclick: f}, "text", child). */
export function h(tag, attrs = {}, ...children) {
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

export const state = {
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
  /** Whether the connection is up and welcomed: requests are refused, not queued, when not. */
  online: false,
  /** Why the link is down, for the board's "reconnecting" line. */
  offlineWhy: "",
  /** A notice to show once the address has changed (the change clears notices). */
  nextNotice: null,
  /** Room id → the mark we held in its last game, to tell the player after a rematch. */
  lastMark: new Map(),
  /** Room id → an analysis asked for and not yet answered. */
  analysing: new Set(),
  /** The games page: {name, games, more, record, loading}, from `history` answers. */
  history: null,
  /** The replay on screen: {game (the `game` answer), ply (how many moves are shown)}. */
  replay: null,
};

// --- routing -------------------------------------------------------------------------

/** What the address asks for: {view: "lobby"}, {view: "room", id, watch}, {view: "games",
 *  name} (the kept games, of one player when named) or {view: "game", id} (a replay). */
export function route() {
  const hash = decodeURIComponent(location.hash);
  const games = /^#\/games(?:\?name=(.*))?$/.exec(hash);
  if (games) return { view: "games", name: (games[1] || "").trim() };
  const game = /^#\/g\/(\d+)(?:\/(\d+))?$/.exec(hash);
  if (game) return { view: "game", id: Number(game[1]) };
  const match = /^#\/([rw])\/([A-Za-z0-9 ]+)$/.exec(hash);
  if (!match) return { view: "lobby" };
  return { view: "room", id: match[2].trim().toLowerCase(), watch: match[1] === "w" };
}

function inviteLink(id) {
  return `${location.origin}/#/r/${id}`;
}

function rememberRooms() {
  localStorage.setItem(ROOMS_KEY, JSON.stringify([...state.rooms.keys()]));
}

/** Goes to `hash`, then shows `text` (a hash change clears the notice otherwise). */
function go(hash, text) {
  if (location.hash === hash || (hash === "#/" && location.hash === "")) {
    notice(text);
    draw();
    return;
  }
  state.nextNotice = text || null;
  location.hash = hash;
}

/** Enters the room the address names, unless we are in it already. */
function enterRoute() {
  const r = route();
  if (r.view === "games" && state.me) return withGames().then((g) => g.askHistory(r.name, null));
  if (r.view === "game" && state.me) return withGames().then((g) => g.askGame(r.id));
  if (r.view !== "room" || state.rooms.has(r.id) || !state.me) return;
  if (r.watch) request({ type: "join", room: r.id }, { kind: "watch", room: r.id });
  else request({ type: "join", room: r.id, seat: "any" }, { kind: "join", room: r.id });
}

// --- the connection ------------------------------------------------------------------

/** Sends a request; when the link is down it is not queued: the player is told instead. */
export function request(message, pending) {
  if (!state.online) {
    notice("Not connected: reconnecting… Try again once the game is back.");
    return null;
  }
  const id = state.conn.send(message);
  if (pending) state.pending.set(id, pending);
  return id;
}

/** Shows a line above the page: an error or refusal, or with `kind` "info" news. */
function notice(text, kind) {
  const el = $("notice");
  el.textContent = text || "";
  el.hidden = !text;
  el.className = kind === "info" ? "info" : "";
  el.setAttribute("role", kind === "info" ? "status" : "alert");
}

/** Says `text` to screen readers (the live region is visually hidden). */
function announce(text) {
  const el = $("announce");
  // The same words twice in a row are announced again only if the text changes.
  el.textContent = el.textContent === text ? `${text}\u00a0` : text;
}

// --- attention: title and sound ------------------------------------------------------

function soundOn() {
  return localStorage.getItem(SOUND_KEY) === "on";
}

function drawSoundSwitch() {
  const on = soundOn();
  const button = $("sound");
  button.textContent = on ? "Sound: on" : "Sound: off";
  button.title = on
    ? "Mute the sounds of your turn, a game's end and your low time"
    : "Play a sound on your turn, at a game's end and as your clock runs low";
}

let audio = null;
/** A short two-note chime (no sound file to load); quiet unless the player turned it on. */
function chime(high) {
  if (!soundOn()) return;
  try {
    audio = audio || new AudioContext();
    const now = audio.currentTime;
    for (const [i, freq] of [high ? 660 : 520, high ? 880 : 660].entries()) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + i * 0.12);
      gain.gain.exponentialRampToValueAtTime(0.15, now + i * 0.12 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.12 + 0.25);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + i * 0.12);
      osc.stop(now + i * 0.12 + 0.3);
    }
  } catch {
    // No audio in this browser: the title still changes.
  }
}

/** Draws the eye to the tab when it is hidden: the title says what happened. */
function attention(words, high) {
  chime(high);
  if (document.hidden) document.title = `● ${words} — ${TITLE}`;
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
    case "engines":
      offerEngines(msg.engines);
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
    case "history":
      games?.onHistory(msg, asked);
      break;
    case "game":
      games?.onGame(msg.game);
      break;
    case "renamed":
      onRenamed(msg);
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
  showName();
  $("rename").hidden = false;
  if (!msg.resumed) {
    // A new session is in no room: forget what the old one showed.
    state.rooms.clear();
    rememberRooms();
  }
  const stored = JSON.parse(localStorage.getItem(ROOMS_KEY) || "[]");
  const r = route();
  // A resumed session gets a snapshot of each of its rooms right after `welcome`.
  if (msg.resumed && r.view === "room" && stored.includes(r.id)) return draw();
  if (r.view === "lobby") request({ type: "list_rooms" });
  // The host's external engines join the AI levels of the new-room form.
  request({ type: "list_engines" });
  enterRoute();
  draw();
}

/** Offers each external engine the server runs as a choice for either seat of a new room. */
function offerEngines(engines) {
  for (const id of ["create-x", "create-o"]) {
    const select = $(id);
    for (const old of select.querySelectorAll("option[data-engine]")) old.remove();
    for (const engine of engines) {
      const sides = engine.sides.length ? `${engine.sides[0]}–${engine.sides[engine.sides.length - 1]}` : "";
      select.append(h("option", { value: `engine:${engine.name}`, "data-engine": "", title: engine.about },
        `Engine ${engine.name} (5 in a row, ${sides})`));
    }
  }
}

/** The header's "you are NAME" (a player or a spectator alike). */
function showName() {
  $("who").replaceChildren(h("span", { class: "wide" }, "you are "), localStorage.getItem(NAME_KEY));
}

/** The header's rename form, open or closed. */
function renaming(open) {
  $("rename-form").hidden = !open;
  $("rename").hidden = open;
  $("who").hidden = open;
  if (open) {
    $("rename-input").value = localStorage.getItem(NAME_KEY) || "";
    $("rename-input").focus();
  }
}

/** The server took our new name: reconnections say it in `hello`; the rooms' snapshots show it. */
function onRenamed(msg) {
  localStorage.setItem(NAME_KEY, msg.name);
  renaming(false);
  showName();
  notice(`You are now ${msg.name}.`, "info");
}

/** The name a mark's seat shows: "you", a person's name or "AI". */
function moverName(snap, mark) {
  const seat = snap.seats.find((s) => s.mark === mark);
  if (!seat) return mark;
  const o = seat.occupant;
  if (o.kind === "human" && o.session === state.me) return "You";
  if (o.kind === "ai") return "AI";
  if (o.kind === "human") return o.name;
  return mark;
}

/** Tells what a move changed: the live region, and the title or a sound when it is now the
 *  player's turn or the game is over. `before` is the snapshot the move was played on. */
function tellMove(before, after, by, cell) {
  const mine = mySeat(after);
  const status = after.status;
  let words = `${moverName(before, by)} played ${cell}.`;
  const over = OVER.includes(status.state);
  if (over) words += ` ${statusLine(after, mine)}`;
  else if (status.state === "playing" && status.turn === mine) words += " Your move.";
  announce(words);
  if (!mine || by === mine) return;
  if (over) attention(statusLine(after, mine).replace(/\.$/, ""), status.winner === mine);
  else if (status.state === "playing" && status.turn === mine) attention("Your move", true);
}

/** After a rematch, says which mark the player now holds (a rematch swaps the seats). */
function tellRematch(before, snap) {
  const mine = mySeat(snap);
  const had = state.lastMark.get(snap.id);
  if (mine) state.lastMark.set(snap.id, mine);
  if (!before || snap.game === before.game || !mine) return;
  const order = mine === "X" ? "you move first" : "you move second";
  const words = `Game ${snap.game}: you now play ${mine} (${order})${had && had !== mine ? `, colours swapped` : ""}.`;
  notice(words, "info");
  announce(words);
  if (snap.status.state === "playing" && snap.status.turn === mine) attention("Your move", true);
}

function onSnapshot(snap, asked) {
  const known = state.rooms.get(snap.id);
  // A snapshot repeats the current seq when sent to us alone; an older one is stale.
  if (known && snap.seq < known.snap.seq) return;
  const entry = known || { chat: [] };
  const before = known ? known.snap : null;
  // Entering a room (join, watch, resume, sync) brings its recent chat in the snapshot:
  // lines already shown (a resume without a reload) are kept once, in the room's order.
  if (snap.chat) {
    const shown = new Set(entry.chat.map((line) => line.seq));
    for (const line of snap.chat) if (!shown.has(line.seq)) entry.chat.push({ room: snap.id, ...line });
    entry.chat.sort((a, b) => a.seq - b.seq);
    entry.chat.splice(0, Math.max(0, entry.chat.length - CHAT_LINES));
    delete snap.chat;
  }
  entry.snap = snap;
  entry.clockAt = performance.now();
  entry.syncing = false;
  state.rooms.set(snap.id, entry);
  rememberRooms();
  if (before && before.game === snap.game && snap.ply === before.ply + 1 && snap.last_move) {
    // Protocol 1 sends a snapshot where protocol 2 sends `moved`.
    const by = markAt(snap, ...cellAt(snap.last_move));
    tellMove(before, snap, by, snap.last_move);
  }
  tellRematch(before, snap);
  if (asked && asked.kind === "create") {
    location.hash = `#/r/${snap.id}`;
    return;
  }
  if (route().view === "room" && route().id === snap.id) drawRoom();
}

function cellAt(name) {
  const match = /^([a-z])(\d+)$/.exec(name);
  return match ? [match[1].charCodeAt(0) - 97, Number(match[2]) - 1] : [0, 0];
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
  const before = entry.snap;
  const next = applyMoved(before, msg);
  if (!next) return resync(entry);
  entry.snap = next;
  entry.clockAt = performance.now();
  tellMove(before, next, msg.by, msg.cell);
  if (route().view === "room" && route().id === msg.room) drawRoom();
}

/** Keeps an analysis of a room's position; it shows until the position moves on. */
function onAnalysis(msg) {
  const entry = state.rooms.get(msg.room);
  if (!entry) return;
  entry.hints = msg;
  state.analysing.delete(msg.room);
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
    go("#/", `There is no room with the code “${asked.room}”: check the invite code, or the room may have closed.`);
    return;
  }
  if (asked && asked.kind === "history" && state.history) state.history.loading = false;
  if (asked && asked.kind === "game" && route().view === "game") {
    $("game-status").textContent = errorWords(msg.code, msg.message);
  }
    if (asked && asked.kind === "analyze") {
    state.analysing.delete(asked.room);
    const entry = state.rooms.get(asked.room);
    // The position moved on while the AI looked at it: not a failure, ask again.
    if (msg.code === "stale_ply" && entry) {
      state.analysing.add(asked.room);
      request({ type: "analyze", room: asked.room }, { kind: "analyze", room: asked.room });
      return;
    }
    if (route().view === "room") drawHintInfo(currentRoom());
  }
  notice(errorWords(msg.code, msg.message));
}

// --- drawing -------------------------------------------------------------------------

function draw() {
  const r = route();
  const named = Boolean(localStorage.getItem(NAME_KEY));
  $("name-view").hidden = named;
  $("lobby-view").hidden = !named || r.view !== "lobby";
  $("room-view").hidden = !named || r.view !== "room";
  $("games-view").hidden = !named || r.view !== "games";
  $("game-view").hidden = !named || r.view !== "game";
  if (!named) return;
  if (r.view === "lobby") drawLobby();
  else if (r.view === "games") games ? games.drawGames() : withGames();
  else if (r.view === "game") games ? games.drawReplay() : withGames();
  else drawRoom();
}

// --- kept games: their list and the replay live in games.js, loaded when first shown ---

/** The kept games' module once loaded. */
let games = null;
/** Its import while it loads. */
let gamesLoading = null;

/** The kept games' module, loading it the first time (and drawing the page it is for). */
function withGames() {
  if (games) return Promise.resolve(games);
  gamesLoading ??= import("./games.js").then((module) => {
    games = module;
    draw();
    return module;
  });
  return gamesLoading;
}

function seatLabel(seat) {
  const o = seat.occupant;
  if (o.kind === "empty") return "open";
  if (o.kind === "ai") return o.engine ? `engine ${o.engine}` : `AI ${o.level}`;
  return o.name;
}

function statusWords(status) {
  switch (status.state) {
    case "waiting": return "waiting for a player";
    case "playing": return `${status.turn} to move`;
    case "won": return `${status.winner} won`;
    case "drawn": return "drawn";
    case "resigned": return `${status.winner} won by resignation`;
    case "timeout": return `${status.winner} won on time`;
    case "agreed": return "drawn by agreement";
    case "aborted": return "aborted";
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
          `${rulesLabel(room.rules)}${room.time_control ? ` ${timeControlWords(room.time_control)}` : ""} — ${seats} — ${statusWords(room.status)}` +
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
    case "timeout":
      if (s.winner === mine) return "Your opponent ran out of time: you won.";
      return mine ? "You ran out of time." : `${name(s.winner)} (${s.winner}) won on time.`;
    case "agreed": return "Drawn by agreement.";
    case "aborted": return "Aborted before each side had moved: no result.";
    default: return s.state;
  }
}

/** The waiting offer, after the status: who asked for what. */
function offerWords(snap, mine) {
  const offer = snap.offer;
  if (!offer) return "";
  const what = offer.kind === "draw" ? "a draw" : "to take back a move";
  if (offer.by === mine) return ` You asked for ${what}; waiting for the answer.`;
  const who = mine ? "Your opponent" : offer.by;
  return ` ${who} asks for ${what}.`;
}

// --- clocks --------------------------------------------------------------------------

/** Time on a clock: 2:58, 1:02:05 past an hour, 9.4 under ten seconds, 3d 4h for days
 *  (the terminal client writes the same). */
export function clockText(ms) {
  const secs = Math.floor(ms / 1000);
  if (secs >= 86400) return `${Math.floor(secs / 86400)}d ${Math.floor((secs % 86400) / 3600)}h`;
  const pad = (n) => String(n).padStart(2, "0");
  if (secs >= 3600) return `${Math.floor(secs / 3600)}:${pad(Math.floor(secs / 60) % 60)}:${pad(secs % 60)}`;
  if (ms < 10000) return `${secs}.${Math.floor((ms % 1000) / 100)}`;
  return `${Math.floor(secs / 60)}:${pad(secs % 60)}`;
}

/** A seat's remaining time now: the server's figure, the running clock counted down
 *  since it came (never below zero: the server says when a clock runs out). */
function remainingNow(entry, mark) {
  const clock = entry.snap.clock;
  const ms = mark === "X" ? clock.x_ms : clock.o_ms;
  if (clock.running !== mark) return ms;
  return Math.max(0, ms - (performance.now() - (entry.clockAt || performance.now())));
}

/** The clock of one seat, for its row in the seats box. */
function clockSpan(entry, mark) {
  const clock = entry.snap.clock;
  const left = remainingNow(entry, mark);
  const running = clock.running === mark;
  return h("span", {
    class: `clock${running ? " running" : ""}${left < LOW_TIME_MS ? " low" : ""}`,
    dataset: { clock: mark },
    role: "timer",
    "aria-label": `${mark}'s clock${running ? ", running" : ""}`,
  }, clockText(left));
}

/** A time control as the create form names it: 3+2, 30 s a move, 1 day a move. */
export function timeControlWords(tc) {
  switch (tc.kind) {
    case "fischer": {
      const base = tc.base_ms % 60000 === 0 ? `${tc.base_ms / 60000}` : `${tc.base_ms / 1000}s`;
      return `${base}+${tc.increment_ms / 1000}`;
    }
    case "per_move": return `${tc.ms / 1000} s a move`;
    case "correspondence": return `${tc.days} day${tc.days === 1 ? "" : "s"} a move`;
    default: return tc.kind;
  }
}

/** Above the board on narrow screens: both clocks, X on the left. */
function drawClockBar(entry) {
  const bar = $("clock-bar");
  bar.hidden = !entry.snap.clock;
  if (!entry.snap.clock) return bar.replaceChildren();
  bar.replaceChildren(...["X", "O"].map((mark) =>
    h("span", { class: "bar-seat" },
      h("span", { class: `disc ${mark.toLowerCase()}`, "aria-hidden": "true" }, mark),
      clockSpan(entry, mark))));
}

/** Between the server's events, counts the running clock down on screen, and (with sound
 *  on) ticks aloud each second of the player's own low time. */
function tickClocks() {
  const entry = currentRoom();
  if (!entry || !entry.snap.clock || !entry.snap.clock.running || route().view !== "room") return;
  const mark = entry.snap.clock.running;
  const shown = document.querySelectorAll(`[data-clock="${mark}"]`);
  if (!shown.length) return;
  const left = remainingNow(entry, mark);
  for (const el of shown) {
    el.textContent = clockText(left);
    el.classList.toggle("low", left < LOW_TIME_MS);
  }
  if (left < LOW_TIME_MS && left > 0 && mark === mySeat(entry.snap)) {
    const second = Math.ceil(left / 1000);
    if (state.lowTick !== second) {
      state.lowTick = second;
      tick();
    }
  }
}

/** One short click of low time; quiet unless the player turned the sound on. */
function tick() {
  if (!soundOn()) return;
  try {
    audio = audio || new AudioContext();
    const now = audio.currentTime;
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = 1200;
    gain.gain.setValueAtTime(0.0001, now);
    gain.gain.exponentialRampToValueAtTime(0.08, now + 0.005);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + 0.06);
    osc.connect(gain).connect(audio.destination);
    osc.start(now);
    osc.stop(now + 0.08);
  } catch {
    // No audio in this browser: the clock still turns red.
  }
}

function drawRoom() {
  const r = route();
  const entry = state.rooms.get(r.id);
  const view = $("room-view");
  if (!entry) {
    $("room-title").textContent = `Room ${r.id}`;
    $("room-status").textContent = state.online ? "Entering…" : "Connecting…";
    $("board").replaceChildren();
    $("ranks").replaceChildren();
    $("files").replaceChildren();
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
  view.classList.toggle("gravity", snap.rules.gravity);
  $("room-title").textContent = snap.name;
  $("room-rules").textContent =
    `${rulesLabel(snap.rules)} · game ${snap.game} · move ${snap.ply}` +
    (mine ? ` · you play ${mine}` : " · you are watching") +
    (snap.private ? " · private" : "") +
    (snap.time_control ? ` · clock ${timeControlWords(snap.time_control)}` : "") +
    (snap.spectators.length ? ` · watching: ${snap.spectators.join(", ")}` : "");
  const status = $("room-status");
  status.textContent = state.online
    ? statusLine(snap, mine) + offerWords(snap, mine)
    : `Offline: ${state.offlineWhy || "reconnecting…"}`;
  status.classList.toggle("offline-banner", !state.online);
  $("moves").textContent = snap.moves.length ? `Moves: ${snap.moves.join(" ")}` : "";
  const over = OVER.includes(st.state);
  // Where the finished game is kept (the snapshot names it once the game has ended).
  $("room-kept").replaceChildren(...(over && snap.last_game
    ? ["This game is kept as ", h("a", { href: `#/g/${snap.last_game}`, id: "kept-link" }, `game ${snap.last_game}`), ": replay it any time."]
    : []));
  drawBoard(snap, mine);
  drawHintInfo(entry);
  drawSeats(snap, mine);
  drawClockBar(entry);
  drawActions(snap, mine);
  $("invite").replaceChildren(
    h("span", {}, "Invite: "),
    h("a", { href: inviteLink(snap.id), id: "invite-link" }, inviteLink(snap.id)),
  );
  drawChat(entry);
  if (document.hidden === false) document.title = `${snap.name} — ${TITLE}`;
}

/** Under the board: "analysing" while a hint is on its way, then the marks' legend. */
function drawHintInfo(entry) {
  const info = $("hint-info");
  if (!entry) return info.replaceChildren();
  if (state.analysing.has(entry.snap.id)) {
    return info.replaceChildren(h("div", { class: "analysing", role: "status" },
      h("progress", { "aria-label": "Analysing the position" }), "Analysing the position…"));
  }
  if (hintsFor(entry.snap).size === 0) return info.replaceChildren();
  const key = (kind, text, words) =>
    h("span", {}, h("span", { class: `key hint-${kind}`, "aria-hidden": "true" }, text), ` ${words}`);
  info.replaceChildren(h("p", { class: "legend" },
    h("strong", {}, "Hints for the player to move:"),
    key("win", "W3", "wins in 3 moves"),
    key("draw", "=", "draws"),
    key("loss", "L2", "loses in 2"),
    key("guess", "+/−", "estimate")));
}

/** The elements a board is drawn into: the room's, or the replay's. */
const ROOM_IDS = { board: "board", wrap: "board-wrap", ranks: "ranks", files: "files" };
export const REPLAY_IDS = { board: "replay-board", wrap: "replay-wrap", ranks: "replay-ranks", files: "replay-files" };

export function drawBoard(snap, mine, ids = ROOM_IDS) {
  const board = $(ids.board);
  const wrap = $(ids.wrap);
  const { width, height, gravity } = snap.rules;
  const hadFocus = board.contains(document.activeElement);
  wrap.style.setProperty("--w", width);
  wrap.style.setProperty("--h", height);
  wrap.classList.toggle("dense", Math.max(width, height) >= 11);
  board.setAttribute("aria-label", `${rulesLabel(snap.rules)} board, ${width} columns by ${height} rows`);
  board.setAttribute("aria-rowcount", String(height));
  board.setAttribute("aria-colcount", String(width));
  const c = state.cursor;
  c.col = Math.min(c.col, width - 1);
  c.row = Math.min(c.row, height - 1);
  const line = new Set(snap.status.line || []);
  const myTurn = state.online && snap.status.state === "playing" && snap.status.turn === mine;
  board.classList.toggle("playable", myTurn);
  board.classList.toggle("offline", ids === ROOM_IDS && !state.online);
  board.setAttribute("aria-disabled", String(!myTurn));
  const ghostRow = gravity && myTurn ? landingRow(snap, c.col) : null;
  const hints = hintsFor(snap);
  const rows = [];
  for (let row = height - 1; row >= 0; row -= 1) {
    const cells = [];
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
      const extra = (snap.last_move === name ? ", last move" : "") + (line.has(name) ? ", winning line" : "");
      const stone = mark === "." ? null : h("span", { class: `stone ${mark.toLowerCase()}`, "aria-hidden": "true" }, mark);
      cells.push(
        h("div", {
          class: classes.join(" "),
          role: "gridcell",
          tabindex: ids === ROOM_IDS ? (here ? "0" : "-1") : null,
          "aria-label": `${name}, ${words}${extra}`,
          dataset: { cell: name, col: String(col), row: String(row) },
        }, stone || (hint ? hint.text : "")),
      );
    }
    rows.push(h("div", { role: "row", "aria-rowindex": String(height - row) }, ...cells));
  }
  board.replaceChildren(...rows);
  const ranks = [];
  for (let row = height - 1; row >= 0; row -= 1) ranks.push(h("span", {}, String(row + 1)));
  $(ids.ranks).replaceChildren(...ranks);
  const files = [];
  for (let col = 0; col < width; col += 1) files.push(h("span", {}, columnName(col)));
  $(ids.files).replaceChildren(...files);
  if (hadFocus && ids === ROOM_IDS) focusCursor();
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
  if (!state.online) return notice("Not connected: reconnecting… Your move was not sent.");
  if (!mine) return notice("You are watching: take a seat to play.");
  const st = snap.status.state;
  if (OVER.includes(st)) {
    return notice("The game is over. Ask for a rematch to play again.");
  }
  if (st === "waiting") return notice("The game waits for a player to take the open seat.");
  if (snap.status.turn !== mine) return notice("It is not your turn.");
  const move = moveFor(snap, col, row);
  if (!move) return notice(snap.rules.gravity ? "That column is full." : "That cell is taken.");
  notice(null);
  request({ type: "play", room: snap.id, ply: snap.ply, move });
}

/** Whether we may put an AI in a seat or free one: a player of the room may, and anyone in
 *  it while no person holds a seat (a room of AIs, or one its creator only watches). The
 *  server decides (issue 37, §2); the page offers only what it would allow, so a spectator
 *  cannot swap out a player's AI opponent and take the seat mid-game. */
function maySetSeats(snap, mine) {
  return Boolean(mine) || !snap.seats.some((s) => s.occupant.kind === "human");
}

function drawSeats(snap, mine) {
  const turn = snap.status.state === "playing" ? snap.status.turn : null;
  const entry = state.rooms.get(snap.id);
  const controls = maySetSeats(snap, mine);
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
        if (controls) {
          const level = h("select", { "aria-label": `AI level for ${seat.mark}` },
            h("option", { value: "perfect" }, "perfect"),
            h("option", { value: "medium" }, "medium"),
            h("option", { value: "easy" }, "easy"));
          buttons.push(level, h("button", {
            class: "secondary",
            onclick: () => request({ type: "set_seat", room: snap.id, seat: seat.mark, ai: level.value }),
            dataset: { action: `ai-${seat.mark}` },
          }, "Seat AI"));
        }
      } else if (o.kind === "ai" && controls) {
        buttons.push(h("button", {
          class: "secondary",
          onclick: () => request({ type: "set_seat", room: snap.id, seat: seat.mark, ai: null }),
          dataset: { action: `free-${seat.mark}` },
        }, "Remove AI"));
      }
      return h("div", { class: `seat${turn === seat.mark ? " turn" : ""}`, dataset: { seat: seat.mark } },
        h("span", { class: `disc ${seat.mark.toLowerCase()}` }, seat.mark),
        h("span", { class: "who" }, who),
        snap.clock && entry ? clockSpan(entry, seat.mark) : null,
        ...buttons);
    }),
  );
}

function drawActions(snap, mine) {
  const st = snap.status.state;
  const over = OVER.includes(st);
  const buttons = [];
  if (mine && over) {
    const asked = snap.seats.find((s) => s.mark === mine).rematch;
    buttons.push(h("button", {
      disabled: asked,
      onclick: () => request({ type: "rematch", room: snap.id }),
      dataset: { action: "rematch" },
    }, asked ? "Rematch asked" : "Rematch"));
  }
  const offer = snap.offer;
  if (mine && st === "playing" && offer && offer.by !== mine) {
    const what = offer.kind === "draw" ? "draw" : "takeback";
    buttons.push(
      h("button", {
        onclick: () => request({ type: offer.kind, room: snap.id, accept: true }),
        dataset: { action: `accept-${what}` },
      }, offer.kind === "draw" ? "Accept draw" : "Allow takeback"),
      h("button", {
        class: "secondary",
        onclick: () => request({ type: offer.kind, room: snap.id, accept: false }),
        dataset: { action: `decline-${what}` },
      }, "Decline"),
    );
  } else if (mine && st === "playing") {
    const asked = Boolean(offer);
    // A takeback needs one of our moves on the board; the server checks the rest.
    const ours = snap.ply >= (mine === "X" ? 1 : 2);
    if (snap.takebacks) {
      buttons.push(h("button", {
        class: "secondary",
        disabled: asked || !ours,
        onclick: () => request({ type: "takeback", room: snap.id }),
        dataset: { action: "takeback" },
      }, asked && offer.kind === "takeback" ? "Takeback asked" : "Take back"));
    }
    buttons.push(h("button", {
      class: "secondary",
      disabled: asked,
      onclick: () => request({ type: "draw", room: snap.id }),
      dataset: { action: "draw" },
    }, asked && offer.kind === "draw" ? "Draw offered" : "Offer draw"));
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
      disabled: state.analysing.has(snap.id),
      onclick: () => {
        notice(null);
        if (request({ type: "analyze", room: snap.id }, { kind: "analyze", room: snap.id }) === null) return;
        state.analysing.add(snap.id);
        drawHintInfo(state.rooms.get(snap.id));
        drawActions(snap, mine);
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
  } else if (event.key === "Enter" || event.key === " ") {
    playAt(c.col, c.row);
  } else if (event.key === "Home" || event.key === "End") {
    c.col = event.key === "Home" ? 0 : width - 1;
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
  if (value.startsWith("engine:")) return { kind: "engine", name: value.slice("engine:".length) };
  return { kind: "ai", level: value };
}

/** The `time_control` of the create form's choice: a Fischer preset by name, `30s` a move,
 *  `1d` correspondence. */
function clockControl(value) {
  if (value === "30s") return { kind: "per_move", ms: 30000 };
  if (value === "1d") return { kind: "correspondence", days: 1 };
  return value;
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
    takebacks: $("create-takebacks").checked,
  };
  const clock = $("create-clock").value;
  if (clock !== "none") message.time_control = clockControl(clock);
  const name = $("create-name").value.trim();
  if (name) message.name = name;
  notice(null);
  request(message, { kind: "create" });
}

/** The link went up (`why` null) or down: the board is disabled and says so while down. */
function onLinkStatus(why) {
  state.online = !why;
  state.offlineWhy = why || "";
  $("link-status").textContent = why ? "Reconnecting…" : "";
  if (why && route().view === "room") drawRoom();
}

/** The connection cannot go on; `takeBack` (when given) reconnects this tab. */
function onFatal(text, takeBack) {
  state.online = false;
  state.offlineWhy = "disconnected";
  $("link-status").textContent = "Disconnected";
  const el = $("notice");
  notice(text);
  if (takeBack) {
    el.append(" ", h("button", {
      type: "button",
      id: "take-back",
      onclick: () => {
        notice(null);
        state.conn.reopen();
      },
    }, "Play here instead"));
  }
  if (route().view === "room") drawRoom();
}

function start(name) {
  state.conn = new Connection(name, {
    message: onMessage,
    status: onLinkStatus,
    fatal: onFatal,
  });
  state.conn.open();
  setInterval(() => {
    if (route().view === "lobby" && state.me && state.online && !document.hidden) request({ type: "list_rooms" });
  }, LOBBY_REFRESH_MS);
}

/** The room code of what was typed or pasted in the invite field: a code, or an invite or
 *  watch link. Null when it cannot be one. */
function onJoin(event) {
  event.preventDefault();
  const typed = $("join-code").value;
  const invite = parseInvite(typed);
  if (!invite) {
    notice(`“${typed.trim()}” is not an invite code: a code is letters and digits, such as k7m2q9xa, or paste the whole invite link.`);
    return;
  }
  $("join-code").value = "";
  go(`#/${invite.watch ? "w" : "r"}/${invite.code}`);
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
  $("rename").addEventListener("click", () => renaming(true));
  $("rename-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = $("rename-input").value.trim();
    if (!name) return;
    if (name === localStorage.getItem(NAME_KEY)) return renaming(false);
    request({ type: "rename", name });
  });
  $("rename-form").addEventListener("keydown", (event) => {
    if (event.key === "Escape") renaming(false);
  });
  $("create-rules").addEventListener("change", () => {
    $("custom-rules").hidden = $("create-rules").value !== "custom";
  });
  $("create-form").addEventListener("submit", onCreate);
  // Takebacks are on for untimed games and off for timed ones unless chosen.
  $("create-clock").addEventListener("change", () => {
    $("create-takebacks").checked = $("create-clock").value === "none";
  });
  setInterval(tickClocks, CLOCK_TICK_MS);
  $("join-form").addEventListener("submit", onJoin);
  $("games-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = $("games-name").value.trim();
    const hash = name ? `#/games?name=${encodeURIComponent(name)}` : "#/games";
    if (location.hash === hash) withGames().then((g) => g.askHistory(name, null));
    else location.hash = hash;
  });
  $("games-more").addEventListener("click", () => {
    const hist = state.history;
    if (hist && hist.games.length) {
      const before = hist.games[hist.games.length - 1].game;
      withGames().then((g) => g.askHistory(hist.name, before));
    }
  });
  $("replay-copy").addEventListener("click", async () => {
    const text = $("replay-text").value;
    try {
      await navigator.clipboard.writeText(text);
      notice("The game record is copied.", "info");
    } catch {
      $("replay-text").select();
      notice("Select the record and copy it (the browser did not allow copying).", "info");
    }
  });
  document.addEventListener("keydown", (event) => games?.onReplayKey(event));
  $("sound").addEventListener("click", () => {
    localStorage.setItem(SOUND_KEY, soundOn() ? "off" : "on");
    drawSoundSwitch();
    chime(true);
  });
  drawSoundSwitch();
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) return;
    const entry = currentRoom();
    document.title = entry ? `${entry.snap.name} — ${TITLE}` : TITLE;
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
    notice(state.nextNotice);
    state.nextNotice = null;
    state.cursor = { col: 0, row: 0 };
    if (route().view === "lobby") document.title = TITLE;
    if (route().view === "lobby" && state.me && state.online) request({ type: "list_rooms" });
    enterRoute();
    draw();
  });
  const name = localStorage.getItem(NAME_KEY);
  draw();
  if (name) start(name);
  else $("name-input").focus();
}

init();
