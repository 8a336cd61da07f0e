// inarow web client: the kept games, their list (#/games) and a game's replay (#/g/ID).
// Loaded the first time either page is shown, so a first visit does not download it.

import {
  $, REPLAY_IDS, clockText, drawBoard, h, request, route, state, timeControlWords,
} from "./app.js";
import { replayAt, rulesLabel } from "./game.js";

const HISTORY_PAGE = 20;

/** Asks for a page of kept games (`before` an id, for the next page), of `name` if given. */
export function askHistory(name, before) {
  const message = { type: "history", limit: HISTORY_PAGE };
  if (name) message.name = name;
  if (before) message.before = before;
  if (!before) state.history = { name, games: [], more: false, record: null, loading: true };
  else state.history.loading = true;
  request(message, { kind: "history", name, before });
}

export function onHistory(msg, asked) {
  const name = asked ? asked.name : "";
  if (!state.history || state.history.name !== name) return;
  state.history.games.push(...msg.games);
  state.history.more = msg.more;
  state.history.record = msg.record || null;
  state.history.loading = false;
  if (route().view === "games") drawGames();
}

function playerWords(p) {
  return p.ai ? `AI (${p.ai})` : p.name;
}

function resultWords(result, x, o) {
  const name = (mark) => (mark === "X" ? playerWords(x) : playerWords(o));
  switch (result.state) {
    case "won": return `${name(result.winner)} (${result.winner}) won`;
    case "resigned": return `${name(result.winner)} (${result.winner}) won by resignation`;
    case "timeout": return `${name(result.winner)} (${result.winner}) won on time`;
    case "drawn": return "drawn";
    case "agreed": return "drawn by agreement";
    default: return result.state;
  }
}

function when(ms) {
  return new Date(ms).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
}

export function drawGames() {
  const hist = state.history;
  const r = route();
  $("games-name").value = r.name || "";
  $("games-title").textContent = r.name ? `Games of ${r.name}` : "Past games";
  const record = $("games-record");
  if (hist && hist.record) {
    const t = hist.record.total;
    record.replaceChildren(
      h("p", {}, h("strong", {}, `${hist.record.name}: `), `${t.wins} won, ${t.draws} drawn, ${t.losses} lost`),
      h("ul", { class: "record" }, ...hist.record.opponents.map((o) =>
        h("li", {}, `against ${playerWords(o.opponent)}: ${o.wins} won, ${o.draws} drawn, ${o.losses} lost`))),
    );
  } else {
    record.replaceChildren();
  }
  const list = $("games-list");
  const games = hist ? hist.games : [];
  list.replaceChildren(...games.map((g) => h("li", { dataset: { game: String(g.game) } },
    h("a", { href: `#/g/${g.game}` }, `Game ${g.game}`),
    h("span", {}, ` · ${rulesLabel(g.rules)} · ${playerWords(g.x)} (X) against ${playerWords(g.o)} (O) · ` +
      `${resultWords(g.result, g.x, g.o)} in ${g.ply} moves`),
    h("span", { class: "muted" }, ` · ${when(g.ended_at)}`))));
  $("games-empty").hidden = !hist || hist.loading || games.length > 0;
  $("games-more").hidden = !hist || !hist.more;
  $("games-more").disabled = Boolean(hist && hist.loading);
}

export function askGame(id) {
  if (state.replay && state.replay.game.game === id) return drawReplay();
  state.replay = null;
  request({ type: "game", game: id }, { kind: "game", game: id });
}

export function onGame(game) {
  if (route().view !== "game" || route().id !== game.game) return;
  state.replay = { game, ply: game.moves.length };
  drawReplay();
}

/** In a timed game, both clocks after move `ply`: each side's clock after its last move
 *  so far (its whole time before its first), as the record's %clk gives them. */
function replayClocks(game, ply) {
  if (!game.time_control) return "";
  const start = { fischer: game.time_control.base_ms, per_move: game.time_control.ms,
    correspondence: (game.time_control.days || 0) * 86400000 }[game.time_control.kind];
  const left = { X: start, O: start };
  for (const m of game.moves.slice(0, ply)) if (m.clock_ms !== undefined) left[m.by] = m.clock_ms;
  return ` Clocks: X ${clockText(left.X)}, O ${clockText(left.O)}.`;
}

/** Shows the kept game at ply `ply` (clamped to the game). */
function replayTo(ply) {
  const replay = state.replay;
  if (!replay) return;
  replay.ply = Math.max(0, Math.min(ply, replay.game.moves.length));
  drawReplay();
}

export function drawReplay() {
  const replay = state.replay;
  const r = route();
  if (!replay) {
    $("game-title").textContent = `Game ${r.id}`;
    $("game-status").textContent = state.online ? "Loading…" : "Connecting…";
    return;
  }
  const { game, ply } = replay;
  const total = game.moves.length;
  $("game-title").textContent = `Game ${game.game}: ${playerWords(game.x)} (X) against ${playerWords(game.o)} (O)`;
  $("game-rules").textContent = `${rulesLabel(game.rules)}` +
    (game.time_control ? ` · clock ${timeControlWords(game.time_control)}` : "") +
    ` · ${resultWords(game.result, game.x, game.o)} · ${when(game.ended_at)}`;
  const last = ply > 0 ? game.moves[ply - 1] : null;
  $("game-status").textContent =
    `Move ${ply} of ${total}` + (last ? `: ${last.by} played ${last.move}` : ": the empty board") +
    (ply === total ? `. ${resultWords(game.result, game.x, game.o)}.` : ".") +
    replayClocks(game, ply);
  const snap = replayAt(game, ply);
  $("game-view").classList.toggle("gravity", game.rules.gravity);
  drawBoard(snap, null, REPLAY_IDS);
  for (const [id, to] of [["replay-start", 0], ["replay-back", ply - 1], ["replay-next", ply + 1], ["replay-end", total]]) {
    $(id).disabled = to < 0 || to > total || to === ply;
    $(id).onclick = () => replayTo(to);
  }
  $("replay-moves").replaceChildren(...game.moves.map((m, i) =>
    h("li", {}, h("button", {
      type: "button",
      class: i + 1 === ply ? "move current" : "move",
      "aria-current": i + 1 === ply ? "step" : null,
      dataset: { ply: String(i + 1) },
      onclick: () => replayTo(i + 1),
    }, `${i + 1}. ${m.by} ${m.move}` + (m.clock_ms !== undefined ? ` (${clockText(m.clock_ms)})` : "")))));
  $("replay-text").value = game.text;
  const download = $("replay-download");
  if (download.dataset.game !== String(game.game)) {
    if (download.href) URL.revokeObjectURL(download.href);
    download.href = URL.createObjectURL(new Blob([game.text], { type: "text/plain" }));
    download.download = `inarow-game-${game.game}.txt`;
    download.dataset.game = String(game.game);
  }
}

/** ←/→, Home/End step through a replay (not while typing in a field). */
export function onReplayKey(event) {
  if (route().view !== "game" || !state.replay) return;
  if (event.target.closest && event.target.closest("input, textarea, select")) return;
  const steps = { ArrowLeft: -1, ArrowRight: 1 };
  const ply = state.replay.ply;
  if (event.key in steps) replayTo(ply + steps[event.key]);
  else if (event.key === "Home") replayTo(0);
  else if (event.key === "End") replayTo(state.replay.game.moves.length);
  else return;
  event.preventDefault();
}
