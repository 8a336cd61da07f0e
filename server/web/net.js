// inarow web client: the WebSocket connection. Says `hello` with protocol 2 (falling back to
// 1 when the server answers unsupported_protocol), keeps the resume token in
// localStorage so a reload, a dropped connection, a new tab or a reopened invite link
// resumes the session, numbers requests, and reconnects with back-off. A tab whose session
// another tab resumed is told so and can take it back (docs/protocol.md: `bye` `replaced`).

const TOKEN_KEY = "inarow.token";
const HELLO_ID = "hello";
const FIRST_RETRY_MS = 200;
const MAX_RETRY_MS = 5000;
/** The protocol versions this client speaks, newest first. */
const PROTOCOLS = [2, 1];

/** The WebSocket address of the server that served this page. */
export function serverUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/`;
}

export class Connection {
  /**
   * @param {string} name the display name for `hello`
   * @param {object} on callbacks: `message(msg)` for every server message, `status(text|null)`
   *   when the link goes down (a reason) or up (null), `fatal(text)` when it cannot go on
   */
  constructor(name, on) {
    this.name = name;
    this.on = on;
    this.protocol = PROTOCOLS[0];
    this.nextId = 1;
    this.queue = [];
    this.welcomed = false;
    this.retryMs = FIRST_RETRY_MS;
    this.stopped = false;
    this.socket = null;
  }

  /** Connects (again). */
  open() {
    this.welcomed = false;
    const socket = new WebSocket(serverUrl());
    this.socket = socket;
    socket.onopen = () => {
      const hello = { type: "hello", id: HELLO_ID, protocol: this.protocol, name: this.name };
      // The newest token of this browser: another tab may have resumed the session since.
      // (sessionStorage: where a page from before this change kept it, for one reload.)
      const token = localStorage.getItem(TOKEN_KEY) || sessionStorage.getItem(TOKEN_KEY);
      if (token) hello.token = token;
      socket.send(JSON.stringify(hello));
    };
    socket.onmessage = (event) => this.receive(event.data);
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.stopped) return;
      if (this.fallback) {
        // The server does not speak this version: try the next one at once.
        this.fallback = false;
        this.open();
        return;
      }
      const reason = event.reason || "connection lost";
      this.on.status(`${reason}; reconnecting…`);
      setTimeout(() => this.open(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    };
  }

  receive(data) {
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      return; // not for us
    }
    if (msg.type === "error" && msg.code === "unsupported_protocol") {
      const next = PROTOCOLS[PROTOCOLS.indexOf(this.protocol) + 1];
      if (next) {
        this.protocol = next;
        this.fallback = true; // reconnect when the server closes
        return;
      }
      this.stop(`the server speaks none of protocols ${PROTOCOLS.join(", ")}`);
      return;
    }
    if (msg.type === "bye" && msg.reason === "unsupported_protocol" && this.fallback) return;
    if (msg.type === "error" && msg.code === "invalid_name" && msg.id === HELLO_ID) {
      this.stop(`the server refused the name: ${msg.message}`);
      return;
    }
    if (msg.type === "bye" && msg.reason === "replaced") {
      this.stop("This game is open in another tab or window.", true);
      return;
    }
    if (msg.type === "welcome") {
      localStorage.setItem(TOKEN_KEY, msg.token);
      this.welcomed = true;
      this.retryMs = FIRST_RETRY_MS;
      this.on.status(null);
      this.on.message(msg);
      for (const text of this.queue.splice(0)) this.socket.send(text);
      return;
    }
    this.on.message(msg);
  }

  /** Sends a request (an object with `type`), now or once welcomed; returns its id. */
  send(request) {
    const id = this.nextId;
    this.nextId += 1;
    const text = JSON.stringify({ ...request, id });
    if (this.welcomed && this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(text);
    } else {
      this.queue.push(text);
    }
    return id;
  }

  /** Ends the connection with a message for people; `resumable` when this tab may take the
   *  session back with `reopen`. */
  stop(why, resumable = false) {
    this.stopped = true;
    if (this.socket) this.socket.close(1000);
    this.on.fatal(why, resumable);
  }

  /** Connects again after `stop`, resuming the session with this browser's newest token. */
  reopen() {
    this.stopped = false;
    this.retryMs = FIRST_RETRY_MS;
    if (this.socket) {
      this.socket.onclose = null;
      this.socket.close(1000);
    }
    this.open();
  }
}
