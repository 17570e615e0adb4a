// The analysis board's page.  It knows no rule of Qwirkle: every legal move, score,
// refusal and ending comes from the engine (POST /engine, the requests of
// `qwirkle-core engine`, docs/engine.md).  The lit cells of a tile are read off the
// engine's full move list; a move's score is that list's score; an illegal placement
// shows the message the library gives for it (the board's `check` request).
"use strict";
(() => {
  const CELL = 48;
  const BOTS = ["human", "random", "greedy", "heuristic", "sim"];
  const $ = (id) => document.getElementById(id);
  const SVGNS = "http://www.w3.org/2000/svg";

  const S = {
    session: null,
    summary: null,      // the engine's game summary (what the player to move may know)
    board: [],          // [[row, col, color, shape], ...]
    cells: new Map(),   // "r,c" -> kind
    history: [],
    moves: [],          // the engine's full move list: {placements, score, text}
    keys: [],           // per move: a Set of "r,c,kind"
    byKind: [],         // kind -> indices of the moves that place it
    pending: [],        // [{r, c, kind, index}] tiles put down this turn, not yet played
    selected: null,     // hand index
    lit: [],            // [[r, c], ...] where the selected tile fits
    redo: [],           // the turns undone as the server shows them, the next one first
    seats: ["human", "greedy"],
    referee: false,
    cursor: { r: 0, c: 0 },
    ghost: null,        // a suggestion drawn on hover
    exchange: null,     // a Set of hand indices while choosing an exchange
    view: null,         // the board's viewBox {x, y, w, h}
    busy: false,
    inflight: 0,        // engine requests on their way (the tests wait for none)
    generation: 0,      // counts the positions shown
    timings: { lit: [], litFrame: [], moves: [] },
    lastError: "",
  };

  const kindOf = (color, shape) => color * 6 + shape;
  // A tile's name as the library draws it (the page's tile symbols come from render.py).
  const tileName = (kind) => {
    const title = document.querySelector(`#tile-${kind} title`);
    return title ? title.textContent : "";
  };

  // ------------------------------------------------------------------ the engine
  async function post(path, body) {
    const headers = { "Content-Type": "application/json" };
    if (S.session) headers["X-Qwirkle-Session"] = S.session;
    S.inflight += 1;
    try {
      const response = await fetch(path, { method: "POST", headers, body: JSON.stringify(body) });
      return { status: response.status, json: await response.json() };
    } finally {
      S.inflight -= 1;
    }
  }

  async function startSession() {
    S.session = null;
    const { json } = await post("/session", {});
    if (!json.session) throw new Error(json.error || "no session");
    S.session = json.session;
    await sendView();
  }

  // One engine request; an error reply is returned as it is (callers show it).
  async function engine(request) {
    let { status, json } = await post("/engine", request);
    if (status === 410) {  // the session expired: a new one, then the game is gone
      await startSession();
      ({ status, json } = await post("/engine", request));
    }
    if (status !== 200 && !json.error) json.error = `HTTP ${status}`;
    return json;
  }

  function withReveal(request) {
    return S.referee ? { ...request, reveal: true } : request;
  }

  // ------------------------------------------------------------------ state
  async function refresh(options = {}) {
    S.generation += 1;  // a reply for an older position (suggestions) is then dropped
    const state = await engine(withReveal({ cmd: "state" }));
    if (state.error) { showError(state.error); return; }
    S.summary = state;
    S.board = state.board;
    S.cells = new Map(S.board.map(([r, c, co, sh]) => [`${r},${c}`, kindOf(co, sh)]));
    S.history = state.history;
    S.redo = state.redo || [];  // the server keeps the turns undone; "redo" plays them
    S.pending = [];
    S.selected = null;
    S.lit = [];
    S.ghost = null;
    S.exchange = null;
    $("preview").textContent = "";
    if (state.hand) await loadMoves(); else { S.moves = []; S.keys = []; S.byKind = []; }
    if (options.fit || !S.view) fitView();
    render();
    suggest();
  }

  // The full move list of the position, and an index of it by tile kind, so that a
  // click on a tile lights its cells without asking the server again.
  async function loadMoves() {
    const started = performance.now();
    const reply = await engine({ cmd: "moves" });
    S.moves = reply.error || !reply.moves ? [] : reply.moves;
    S.keys = S.moves.map((m) => new Set(m.placements.map(([r, c, co, sh]) => `${r},${c},${kindOf(co, sh)}`)));
    S.byKind = Array.from({ length: 36 }, () => []);
    S.moves.forEach((m, i) => {
      const seen = new Set();
      for (const [, , co, sh] of m.placements) {
        const k = kindOf(co, sh);
        if (!seen.has(k)) { seen.add(k); S.byKind[k].push(i); }
      }
    });
    const took = performance.now() - started;
    S.timings.moves.push(took);
    return took;
  }

  // The hand of the player to move: absent on a bot's turn when the page plays one seat.
  function hand() {
    return S.summary && S.summary.hand ? S.summary.hand.map(([co, sh]) => kindOf(co, sh)) : [];
  }

  function humanToMove() {
    return S.summary && !S.summary.over && S.seats[S.summary.to_move] === "human";
  }

  // ------------------------------------------------------------------ placing tiles
  const pendingKeys = () => S.pending.map((p) => `${p.r},${p.c},${p.kind}`);

  // The cells where `kind` fits with the tiles put down so far: the cells at which some
  // legal move (the engine's list) places it along with every pending tile.
  function litCells(kind) {
    const need = pendingKeys();
    const out = new Map();
    for (const i of S.byKind[kind] || []) {
      const keys = S.keys[i];
      if (keys.size <= need.length || !need.every((k) => keys.has(k))) continue;
      for (const [r, c, co, sh] of S.moves[i].placements) {
        if (kindOf(co, sh) !== kind) continue;
        const cell = `${r},${c}`;
        if (!S.pending.some((p) => p.r === r && p.c === c)) out.set(cell, [r, c]);
      }
    }
    return [...out.values()];
  }

  function selectTile(index, eventTime) {
    const started = eventTime !== undefined ? eventTime : performance.now();
    if (S.exchange) {
      if (S.exchange.has(index)) S.exchange.delete(index); else S.exchange.add(index);
      renderHand();
      return;
    }
    if (index >= hand().length || S.pending.some((p) => p.index === index)) return;
    S.selected = S.selected === index ? null : index;
    S.lit = S.selected === null ? [] : litCells(hand()[S.selected]);
    renderBoard();
    renderHand();
    S.timings.lit.push(performance.now() - started);
    requestAnimationFrame(() => S.timings.litFrame.push(performance.now() - started));
  }

  // The pending tiles as `play` takes them.
  const pendingAction = () => ({
    action: "place",
    placements: S.pending.map((p) => [p.r, p.c, Math.floor(p.kind / 6), p.kind % 6]),
  });

  // The move the pending tiles make, if the engine listed it.
  function pendingMove() {
    const need = pendingKeys();
    if (!need.length) return null;
    const found = (S.byKind[S.pending[0].kind] || []).find((i) => S.keys[i].size === need.length && need.every((k) => S.keys[i].has(k)));
    return found === undefined ? null : S.moves[found];
  }

  async function placeAt(r, c) {
    if (S.selected === null || S.cells.has(`${r},${c}`) || S.pending.some((p) => p.r === r && p.c === c)) return;
    S.pending.push({ r, c, kind: hand()[S.selected], index: S.selected });
    S.selected = null;
    S.lit = [];
    await updatePreview();
  }

  function takeBack(r, c) {
    const at = r === undefined ? S.pending.length - 1 : S.pending.findIndex((p) => p.r === r && p.c === c);
    if (at < 0) return;
    S.pending.splice(at, 1);
    S.selected = null;
    S.lit = [];
    updatePreview();
  }

  // The score of the pending tiles if they make a move, else the library's reason why not.
  async function updatePreview() {
    showError("");
    const move = pendingMove();
    S.pendingBad = false;
    if (!S.pending.length) {
      $("preview").textContent = "";
    } else if (move) {
      $("preview").textContent = `${move.text}: ${move.score} point${move.score === 1 ? "" : "s"}`;
    } else {
      // Room for another tile is the engine's to say: some tile still has lit cells.
      const open = litAny();
      const reply = await engine({ cmd: "check", action: pendingAction() });
      $("preview").textContent = open ? "not a move yet: add tiles on the lit cells of a tile" : "";
      if (reply.error) {
        S.pendingBad = !open;
        showError((open ? "not legal on its own: " : "illegal: ") + reply.error);
      }
    }
    render();
  }

  // Whether any hand tile can still join the pending tiles in a legal move.
  function litAny() {
    const used = new Set(S.pending.map((p) => p.index));
    return hand().some((k, i) => !used.has(i) && litCells(k).length > 0);
  }

  async function playAction(action) {
    if (S.busy) return null;
    S.busy = true;
    try {
      const reply = await engine(withReveal({ cmd: "play", action }));
      if (reply.error) { showError(reply.error); return null; }
      showError("");
      $("preview").textContent = "";
      await refresh();
      return reply;
    } finally {
      S.busy = false;
    }
  }

  async function playPending() {
    if (!S.pending.length) return;
    if (await playAction(pendingAction())) botTurns();
  }

  // ------------------------------------------------------------------ bots
  async function botTurns() {
    while (S.summary && !S.summary.over && S.seats[S.summary.to_move] !== "human") {
      const turns = S.history.length;
      const summary = S.summary;
      await new Promise((done) => setTimeout(done, 120));  // so that a person sees each turn
      // Whatever changed the position meanwhile (an undo, a new game) has the last
      // word: the bots play on only from the position they were waiting on (a redraw
      // of the same position, such as the referee's view, changes nothing).
      if (S.busy || S.history.length !== turns || S.summary.to_move !== summary.to_move) break;
      if (!S.summary || S.summary.over || S.seats[S.summary.to_move] === "human") break;
      if (!(await botMove(S.seats[S.summary.to_move]))) break;
    }
  }

  // The seat's bot plays its turn on the server (the page never sees its hand).
  async function botMove(name) {
    if (S.busy) return false;
    S.busy = true;
    try {
      const seed = seedTyped() ?? 0;
      const reply = await engine({ cmd: "bot_play", bot: name, seed, movetime: name === "sim" ? 1 : undefined });
      if (reply.error) { showError(reply.error); return false; }
      await refresh();
      return true;
    } finally {
      S.busy = false;
    }
  }

  // The player's view of the seats people play against bots (a bot's hand is never
  // shown); with people only, of whoever is to move.
  async function sendView() {
    const people = S.seats.map((name, seat) => [name, seat]).filter(([name]) => name === "human").map(([, seat]) => seat);
    const seats = people.length === S.seats.length ? null : people;
    const reply = await engine({ cmd: "view", referee: S.referee, seats });
    if (reply.error) showError(reply.error);
  }

  // ------------------------------------------------------------------ undo, redo, stepping
  // Step to the position after `turns` turns: undo back, or play the undone turns
  // again on the server (the same tiles are drawn: the engine's undo puts the bag back
  // as it was). One redraw at the end, however many turns it steps.
  async function goTo(turns) {
    if (S.busy) return false;
    S.busy = true;
    let at = S.history.length;
    const last = at + S.redo.length;
    try {
      while (at > turns && at > 0) {
        const reply = await engine({ cmd: "undo" });
        if (reply.error) { showError(reply.error); break; }
        at -= 1;
      }
      while (at < turns && at < last) {
        const reply = await engine({ cmd: "redo" });
        if (reply.error) { showError(reply.error); break; }
        at += 1;
      }
      await refresh();  // still busy: no bot moves from the position before it
    } finally {
      S.busy = false;
    }
    return true;
  }

  // Against bots, a takeback goes back to the person's last turn, and a redo forward
  // to their next one, over the bots' turns between.
  function undo() {
    let turns = S.history.length - 1;
    while (turns > 0 && S.seats[S.history[turns].player] !== "human") turns -= 1;
    return goTo(turns);
  }

  async function redo() {
    await goTo(S.history.length + 1);
    while (S.redo.length && S.summary && !S.summary.over && !humanToMove()) await goTo(S.history.length + 1);
  }

  // ------------------------------------------------------------------ suggestions
  async function suggest() {
    const table = $("suggestions");
    table.textContent = "";
    $("analysis").textContent = "";
    $("move-list").hidden = true;
    if (!S.summary || S.summary.over || !S.summary.hand) return;
    const generation = S.generation;
    const reply = await engine({ cmd: "analyse", top: 10 });
    if (generation !== S.generation) return;
    if (reply.error) { $("analysis").textContent = reply.error; return; }
    S.suggestions = reply.moves;
    drawSuggestions(reply.moves);
    $("analysis").textContent = `${reply.count} legal moves` + (reply.qwirkle_slots.length ? `; open Qwirkle slots: ${reply.qwirkle_slots.length}` : "");
  }

  function drawSuggestions(moves) {
    const table = $("suggestions");
    table.textContent = "";
    for (const m of moves) {
      const tr = document.createElement("tr");
      const win = m.win === undefined ? "" : `${(100 * m.win).toFixed(1)}%`;
      for (const text of [m.score, m.text, win, m.leaves_qwirkle ? "gives a Qwirkle" : ""]) {
        const td = document.createElement("td");
        td.textContent = text;
        tr.append(td);
      }
      tr.addEventListener("mouseenter", () => { S.ghost = m.placements; renderBoard(); });
      tr.addEventListener("mouseleave", () => { S.ghost = null; renderBoard(); });
      tr.addEventListener("click", () => takeSuggestion(m));
      table.append(tr);
    }
  }

  // A suggestion as the pending move, with the hand tiles it uses.
  function takeSuggestion(move) {
    const free = hand().map((k, i) => [k, i]);
    S.pending = [];
    for (const [r, c, co, sh] of move.placements) {
      const at = free.findIndex(([k]) => k === kindOf(co, sh));
      if (at < 0) return;
      S.pending.push({ r, c, kind: free[at][0], index: free[at][1] });
      free.splice(at, 1);
    }
    S.ghost = null;
    S.selected = null;
    S.lit = [];
    updatePreview();
  }

  async function simulate() {
    // One search at a time, and no move meanwhile (Stop ends it): a second click
    // would only queue a second search behind the first on the server.
    if (S.busy) return;
    S.busy = true;
    $("analysis").textContent = "simulating…";
    const generation = S.generation;
    let reply;
    try {
      reply = await engine({ cmd: "analyse", top: 8, win: true, iterations: 400, time_limit: 3, seed: 1 });
    } finally {
      S.busy = false;
    }
    if (generation !== S.generation) return;
    if (reply.error) { $("analysis").textContent = reply.error; return; }
    drawSuggestions(reply.moves);
    $("analysis").textContent = `win probabilities over ${Math.max(...reply.moves.map((m) => m.iterations), 0)} samples each` + (reply.stopped ? " (stopped early)" : "");
  }

  async function solve() {
    if (S.busy) return;  // as simulate
    S.busy = true;
    $("analysis").textContent = "solving…";
    const generation = S.generation;
    let reply;
    try {
      reply = await engine({ cmd: "solve", time_limit: 5 });
    } finally {
      S.busy = false;
    }
    if (generation !== S.generation) return;
    if (reply.error) { $("analysis").textContent = reply.error; return; }
    $("analysis").textContent = `${reply.exact ? "exact" : "best found"}: ${reply.action}, final spread ${reply.spread > 0 ? "+" : ""}${reply.spread}\nline: ${reply.pv.join("  ")}`;
  }

  async function showAllMoves() {
    const list = $("move-list");
    const started = performance.now();
    await loadMoves();
    drawMoveList(list);
    const took = performance.now() - started;
    S.timings.allMoves = took;
    return took;
  }

  function drawMoveList(list) {
    const shown = 500;  // a long list is cut: a page of 39,000 rows helps no one
    const sorted = S.moves.map((m, i) => [m.score, i]).sort((a, b) => b[0] - a[0]);
    const items = sorted.slice(0, shown).map(([, i]) => {
      const li = document.createElement("li");
      li.textContent = `${S.moves[i].score}  ${S.moves[i].text}`;
      li.addEventListener("mouseenter", () => { S.ghost = S.moves[i].placements; renderBoard(); });
      li.addEventListener("mouseleave", () => { S.ghost = null; renderBoard(); });
      li.addEventListener("click", () => takeSuggestion(S.moves[i]));
      return li;
    });
    list.replaceChildren(...items);
    if (sorted.length > shown) {
      const li = document.createElement("li");
      li.textContent = `… and ${sorted.length - shown} more`;
      list.append(li);
    }
    list.dataset.count = String(S.moves.length);
    list.hidden = false;
  }

  // ------------------------------------------------------------------ drawing
  function fitView() {
    const cells = S.board.map(([r, c]) => [r, c]);
    if (!cells.length) cells.push([0, 0]);
    const rows = cells.map(([r]) => r), cols = cells.map(([, c]) => c);
    const r0 = Math.min(...rows) - 3, r1 = Math.max(...rows) + 3;
    const c0 = Math.min(...cols) - 3, c1 = Math.max(...cols) + 3;
    S.view = { x: c0 * CELL, y: r0 * CELL, w: (c1 - c0 + 1) * CELL, h: (r1 - r0 + 1) * CELL };
  }

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVGNS, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (parent) parent.append(node);
    return node;
  }

  function tileUse(kind, x, y, parent, cls) {
    return el("use", { href: `#tile-${kind}`, x, y, width: CELL, height: CELL, class: cls || "tile" }, parent);
  }

  // The view grown to the board element's shape, so that the cells drawn fill it
  // (an SVG shows more than its viewBox where the shapes differ).
  function fillView() {
    const svg = $("board");
    const v = S.view;
    const aspect = (svg.clientWidth || 1) / (svg.clientHeight || 1);
    if (v.w / v.h < aspect) {
      const w = v.h * aspect;
      S.view = { ...v, x: v.x - (w - v.w) / 2, w };
    } else {
      const h = v.w / aspect;
      S.view = { ...v, y: v.y - (h - v.h) / 2, h };
    }
  }

  function renderBoard() {
    const svg = $("board");
    fillView();
    const v = S.view;
    svg.setAttribute("viewBox", `${v.x} ${v.y} ${v.w} ${v.h}`);
    const root = document.createDocumentFragment();
    // The empty cells in view are clickable: a tile may be put anywhere, and the
    // library says why a place is wrong.
    const rTop = Math.floor(v.y / CELL), rEnd = Math.ceil((v.y + v.h) / CELL);
    const cLeft = Math.floor(v.x / CELL), cEnd = Math.ceil((v.x + v.w) / CELL);
    const grid = el("g", { class: "grid" }, root);
    if ((rEnd - rTop) * (cEnd - cLeft) <= 20000) {
      for (let r = rTop; r < rEnd; r++) {
        for (let c = cLeft; c < cEnd; c++) {
          if (S.cells.has(`${r},${c}`)) continue;
          el("rect", { class: "cell", x: c * CELL, y: r * CELL, width: CELL, height: CELL, "data-cell": `${r},${c}` }, grid);
        }
      }
    }
    for (const [r, c, co, sh] of S.board) {
      const use = tileUse(kindOf(co, sh), c * CELL, r * CELL, root);
      use.setAttribute("data-tile", `${r},${c}`);
    }
    const last = S.history[S.history.length - 1];
    if (last && last.placements) {
      for (const [r, c] of last.placements) el("rect", { class: "last", x: c * CELL + 2, y: r * CELL + 2, width: CELL - 4, height: CELL - 4, rx: 6 }, root);
    }
    for (const [r, c] of S.lit) {
      el("rect", { class: "lit", x: c * CELL + 3, y: r * CELL + 3, width: CELL - 6, height: CELL - 6, rx: 6, "data-row": r, "data-col": c }, root);
    }
    for (const p of S.pending) {
      const use = tileUse(p.kind, p.c * CELL, p.r * CELL, root, "tile pending");
      use.setAttribute("data-pending", `${p.r},${p.c}`);
      el("rect", { class: "pending-ring" + (S.pendingBad ? " bad" : ""), x: p.c * CELL + 1, y: p.r * CELL + 1, width: CELL - 2, height: CELL - 2, rx: 6 }, root);
    }
    const move = pendingMove();
    if (move) {  // the move's score beside its last tile, as the engine scored it
      const last = S.pending[S.pending.length - 1];
      const badge = el("g", { class: "score-badge", transform: `translate(${last.c * CELL + CELL - 4},${last.r * CELL + 4})` }, root);
      el("circle", { r: 13 }, badge);
      el("text", { "text-anchor": "middle", dy: "0.35em" }, badge).textContent = String(move.score);
    }
    if (S.ghost) {
      for (const [r, c, co, sh] of S.ghost) {
        tileUse(kindOf(co, sh), c * CELL, r * CELL, root, "ghost");
        el("rect", { class: "ghost-ring", x: c * CELL + 1, y: r * CELL + 1, width: CELL - 2, height: CELL - 2, rx: 6 }, root);
      }
    }
    el("rect", { class: "cursor", x: S.cursor.c * CELL + 4, y: S.cursor.r * CELL + 4, width: CELL - 8, height: CELL - 8, rx: 4 }, root);
    svg.replaceChildren(root);
  }

  function renderHand() {
    const box = $("hand");
    const used = new Set(S.pending.map((p) => p.index));
    const kinds = S.summary ? hand() : [];
    const buttons = kinds.map((kind, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "hand-tile" + (S.selected === i ? " selected" : "") + (used.has(i) ? " used" : "") + (S.exchange && S.exchange.has(i) ? " marked" : "");
      b.dataset.index = String(i);
      b.dataset.kind = String(kind);
      b.title = `${i + 1}: ${tileName(kind)}`;
      b.setAttribute("aria-label", tileName(kind));
      const svg = el("svg", { viewBox: `0 0 ${CELL} ${CELL}` });
      tileUse(kind, 0, 0, svg);
      b.append(svg);
      b.addEventListener("click", (event) => selectTile(i, event.timeStamp));
      return b;
    });
    if (S.summary && !S.summary.hand && !S.summary.over) {  // another seat's tiles, face down
      for (let i = 0; i < S.summary.hand_sizes[S.summary.to_move]; i++) {
        const b = document.createElement("span");
        b.className = "hand-tile face-down";
        buttons.push(b);
      }
    }
    box.replaceChildren(...buttons);
  }

  function miniTiles(tiles) {
    const span = document.createElement("span");
    for (const [co, sh] of tiles) {
      const svg = el("svg", { viewBox: `0 0 ${CELL} ${CELL}`, class: "mini" });
      const kind = kindOf(co, sh);
      tileUse(kind, 0, 0, svg);
      el("title", {}, svg).textContent = tileName(kind);
      span.append(svg);
    }
    return span;
  }

  function render() {
    renderBoard();
    renderHand();
    const s = S.summary;
    if (!s) return;
    // Scores, whose turn, every hand's size (and in the referee's view every hand).
    const table = $("scores");
    table.textContent = "";
    s.scores.forEach((score, seat) => {
      const tr = document.createElement("tr");
      if (seat === s.to_move && !s.over) tr.className = "to-move";
      tr.dataset.seat = String(seat);
      const cells = [`seat ${seat}${s.winners.includes(seat) ? " ★" : ""}`, S.seats[seat] || "human", String(score), `${s.hand_sizes[seat]} tiles`];
      for (const text of cells) {
        const td = document.createElement("td");
        td.textContent = text;
        tr.append(td);
      }
      const td = document.createElement("td");
      if (s.hands) td.append(miniTiles(s.hands[seat]));
      tr.append(td);
      table.append(tr);
    });
    $("bag-info").textContent = `bag: ${s.bag} tiles`;
    $("referee-info").hidden = !s.hands;
    if (s.hands) {
      $("bag-tiles").replaceChildren(miniTiles(s.bag_tiles));
      $("position-string").textContent = s.position;
      // The deal's seed (none for a position loaded from its string): the referee's only.
      // (As text: a JavaScript number would round a seed above 2**53.)
      $("seed-shown").textContent = s.seed_text === undefined || s.seed_text === null ? "none" : s.seed_text;
    }
    $("turn").textContent = s.over
      ? `Game over (${s.end}): ${s.winners.map((w) => `seat ${w}`).join(" and ")} won`
      : `Seat ${s.to_move} to move (${S.seats[s.to_move] || "human"})` + (S.referee || humanToMove() ? "" : "");
    const move = pendingMove();
    $("play").disabled = !move || !humanToMove();
    $("undo").disabled = !S.history.length;
    $("redo").disabled = !S.redo.length;
    for (const id of ["save-position", "save-record", "link"]) {
      $(id).disabled = !S.referee;
      $(id).title = S.referee ? "" : "the position holds every hand and the bag: the referee's view only";
    }
    $("exchange").classList.toggle("on", !!S.exchange);
    $("exchange").textContent = S.exchange ? `Exchange ${S.exchange.size}` : "Exchange…";
    renderHistory();
  }

  // A turn of the engine's history: its text as the engine shows it (an exchange's
  // tiles in the referee's view only), and a placement's score.
  function turnText(turn) {
    return turn.action === "place" ? `${turn.text} +${turn.score}` : turn.text;
  }

  function renderHistory() {
    const list = $("history");
    const items = S.history.map((turn, i) => {
      const li = document.createElement("li");
      li.textContent = `seat ${turn.player}: ${turnText(turn)}`;
      if (i === S.history.length - 1) li.className = "current";
      li.addEventListener("click", () => goTo(i + 1));
      return li;
    });
    // The turns undone, which redo plays again, greyed after the current one.
    S.redo.forEach((action, j) => {
      const li = document.createElement("li");
      li.className = "future";
      li.textContent = action;
      li.addEventListener("click", () => goTo(S.history.length + j + 1));
      items.push(li);
    });
    list.replaceChildren(...items);
    const current = list.querySelector(".current");
    if (current) current.scrollIntoView({ block: "nearest" });
  }

  function showError(message) {
    S.lastError = message;
    $("error").textContent = message;
  }

  // ------------------------------------------------------------------ pan and zoom
  function zoom(factor, cx, cy) {
    const v = S.view;
    const x = cx === undefined ? v.x + v.w / 2 : cx, y = cy === undefined ? v.y + v.h / 2 : cy;
    const w = Math.min(Math.max(v.w * factor, 4 * CELL), 200 * CELL);
    const h = v.h * (w / v.w);
    S.view = { x: x - (x - v.x) * (w / v.w), y: y - (y - v.y) * (h / v.h), w, h };
    renderBoard();
  }

  function boardPoint(event) {
    const svg = $("board");
    const point = svg.createSVGPoint();
    point.x = event.clientX;
    point.y = event.clientY;
    return point.matrixTransform(svg.getScreenCTM().inverse());
  }

  function setupBoard() {
    const svg = $("board");
    let drag = null;
    svg.addEventListener("pointerdown", (event) => {
      drag = { x: event.clientX, y: event.clientY, view: { ...S.view }, moved: false };
    });
    svg.addEventListener("pointermove", (event) => {
      if (!drag) {  // where the pointer is, in the board's coordinates (row, col)
        const p = boardPoint(event);
        $("coords").textContent = `row ${Math.floor(p.y / CELL)}, col ${Math.floor(p.x / CELL)}`;
        return;
      }
      const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < 5) return;
      if (!drag.moved) { drag.moved = true; svg.setPointerCapture(event.pointerId); svg.classList.add("dragging"); }
      const scale = S.view.w / svg.clientWidth;
      S.view = { ...drag.view, x: drag.view.x - dx * scale, y: drag.view.y - dy * scale };
      renderBoard();
    });
    svg.addEventListener("pointerup", (event) => {
      const wasDrag = drag && drag.moved;
      drag = null;
      svg.classList.remove("dragging");
      if (wasDrag) return;
      const p = boardPoint(event);
      const r = Math.floor(p.y / CELL), c = Math.floor(p.x / CELL);
      S.cursor = { r, c };
      if (S.pending.some((q) => q.r === r && q.c === c)) takeBack(r, c);
      else if (S.selected !== null) placeAt(r, c);
      else renderBoard();
    });
    svg.addEventListener("wheel", (event) => {
      event.preventDefault();
      const p = boardPoint(event);
      zoom(event.deltaY > 0 ? 1.15 : 1 / 1.15, p.x, p.y);
    }, { passive: false });
    $("zoom-in").addEventListener("click", () => zoom(1 / 1.25));
    $("zoom-out").addEventListener("click", () => zoom(1.25));
    $("zoom-fit").addEventListener("click", () => { fitView(); renderBoard(); });
  }

  // ------------------------------------------------------------------ new game, load, save
  function seatChoices() {
    const players = Number($("players").value);
    const box = $("seat-choices");
    const old = S.seats;
    box.textContent = "";
    for (let seat = 0; seat < players; seat++) {
      const label = document.createElement("label");
      label.textContent = `seat ${seat} `;
      const select = document.createElement("select");
      select.id = `seat-${seat}`;
      for (const name of BOTS) select.append(new Option(name, name));
      select.value = old[seat] || (seat === 0 ? "human" : "greedy");
      select.addEventListener("change", async () => { S.seats[seat] = select.value; await sendView(); await refresh(); });
      label.append(select);
      box.append(label);
    }
    S.seats = Array.from({ length: players }, (_, seat) => $(`seat-${seat}`).value);
  }

  async function newGame() {
    seatChoices();
    await sendView();
    // A blank seed: the server deals from one of its own, which the page never sees.
    const seed = seedTyped();
    const reply = await engine({ cmd: "new", players: Number($("players").value), seed });
    if (reply.error) { showError(reply.error); return; }
    showError("");
    await refresh({ fit: true });
    botTurns();
  }

  // The seed box's text, sent as it is (the server reads its digits: a JavaScript
  // number holds integers exactly only up to 2**53, and seeds go to 2**64), or null.
  function seedTyped() {
    const text = $("seed").value.trim();
    return text === "" ? null : text;
  }

  // A position string or a qwirkle-record/1 record (an object, over one line or many,
  // or the first line of a JSON-lines file of them); the engine and the library judge
  // it.  Sent as text, never parsed here: JavaScript would round a seed above 2**53.
  async function load(text) {
    text = text.trim();
    if (!text) return;
    let reply;
    if (text.startsWith("{")) {
      let record = text;
      try { JSON.parse(text); } catch { record = text.split("\n")[0]; }  // JSON lines: the first
      reply = await engine({ cmd: "load_record", record });
    } else {
      reply = await engine({ cmd: "position", position: text });
    }
    if (reply.error) { showError(reply.error); $("io-note").textContent = "not loaded"; return false; }
    showError("");
    // A loaded game: every side entered by hand (so every hand to move is shown).
    const seats = reply.hand_sizes ? reply.hand_sizes.length : (await engine({ cmd: "state" })).hand_sizes.length;
    $("players").value = String(seats);
    S.seats = Array.from({ length: seats }, () => "human");
    seatChoices();
    await sendView();
    await refresh({ fit: true });
    $("io-note").textContent = text.startsWith("{") ? `loaded a record: ${S.history.length} turns` : "loaded a position";
    return true;
  }

  function download(name, text, type) {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([text], { type }));
    a.download = name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }

  async function savePosition() {
    const reply = await engine({ cmd: "state", reveal: true });
    if (reply.error) { showError(reply.error); return; }
    $("io").value = reply.position;
    download("position.txt", reply.position + "\n", "text/plain");
  }

  async function saveRecord() {
    const reply = await engine({ cmd: "record" });
    if (reply.error) { showError(reply.error); return; }
    const text = reply.text;  // the server's line: JSON.stringify would round a large seed
    $("io").value = text;
    download("game.json", text + "\n", "application/json");
  }

  async function link() {
    const reply = await engine({ cmd: "state", reveal: true });
    if (reply.error) { showError(reply.error); return; }
    history.replaceState(null, "", `#position=${encodeURIComponent(reply.position)}`);
    $("io-note").textContent = "the address bar now reopens this position";
    if (navigator.clipboard) navigator.clipboard.writeText(location.href).catch(() => {});
  }

  async function setReferee(on) {
    S.referee = on;
    await sendView();
    $("referee").checked = on;
    await refresh();
  }

  // ------------------------------------------------------------------ exchange and keys
  async function exchange() {
    if (!S.exchange) { S.exchange = new Set(); S.pending = []; S.selected = null; S.lit = []; render(); return; }
    const tiles = [...S.exchange].map((i) => { const k = hand()[i]; return [Math.floor(k / 6), k % 6]; });
    S.exchange = null;
    if (!tiles.length) { render(); return; }
    if (await playAction({ action: "exchange", tiles })) botTurns();
  }

  function onKey(event) {
    if (event.target.closest("input, textarea, select")) return;
    const key = event.key;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (moves[key]) {
      S.cursor = { r: S.cursor.r + moves[key][0], c: S.cursor.c + moves[key][1] };
      renderBoard();
    } else if (key >= "1" && key <= "6") {
      selectTile(Number(key) - 1, event.timeStamp);
    } else if (key === "Enter") {
      if (S.selected !== null) placeAt(S.cursor.r, S.cursor.c);
      else if (pendingMove()) playPending();
      else return;
    } else if (key === "Backspace" || key === "Delete") {
      takeBack();
    } else if (key === "Escape") {
      S.pending = []; S.selected = null; S.lit = []; S.exchange = null; showError(""); $("preview").textContent = ""; render();
    } else if (key === "u") {
      undo();
    } else if (key === "y") {
      redo();
    } else if (key === "[") {
      goTo(S.history.length - 1);
    } else if (key === "]") {
      goTo(S.history.length + 1);
    } else if (key === "Home") {
      goTo(0);
    } else if (key === "End") {
      goTo(S.history.length + S.redo.length);
    } else if (key === "e") {
      exchange();
    } else {
      return;
    }
    event.preventDefault();
  }

  // ------------------------------------------------------------------ start
  async function start() {
    setupBoard();
    seatChoices();
    $("players").addEventListener("change", seatChoices);
    $("new-game").addEventListener("submit", (event) => { event.preventDefault(); newGame(); });
    $("referee").addEventListener("change", () => setReferee($("referee").checked));
    $("play").addEventListener("click", playPending);
    $("clear").addEventListener("click", () => onKey({ key: "Escape", target: document.body, preventDefault() {} }));
    $("exchange").addEventListener("click", exchange);
    $("pass").addEventListener("click", async () => { if (await playAction("pass")) botTurns(); });
    $("bot-move").addEventListener("click", async () => {
      const name = S.seats[S.summary.to_move];
      if (await botMove(name === "human" ? "greedy" : name)) botTurns();
    });
    $("undo").addEventListener("click", undo);
    $("redo").addEventListener("click", redo);
    $("step-start").addEventListener("click", () => goTo(0));
    $("step-back").addEventListener("click", () => goTo(S.history.length - 1));
    $("step-forward").addEventListener("click", () => goTo(S.history.length + 1));
    $("step-end").addEventListener("click", () => goTo(S.history.length + S.redo.length));
    $("sim").addEventListener("click", simulate);
    $("solve").addEventListener("click", solve);
    $("all-moves").addEventListener("click", showAllMoves);
    $("stop").addEventListener("click", () => engine({ cmd: "stop" }));
    $("load").addEventListener("click", () => load($("io").value));
    $("file").addEventListener("change", async () => {
      const file = $("file").files[0];
      if (file) { $("io").value = await file.text(); load($("io").value); }
    });
    $("save-position").addEventListener("click", savePosition);
    $("save-record").addEventListener("click", saveRecord);
    $("link").addEventListener("click", link);
    document.addEventListener("keydown", onKey);
    await startSession();
    const wanted = new URLSearchParams(location.hash.slice(1)).get("position");
    if (!(wanted && (await load(wanted)))) await newGame();
    document.body.dataset.ready = "1";
  }

  // For the browser tests and the screenshot script: the page's state and its timings.
  window.qwirkle = {
    state: S, engine, load, goTo, undo, redo, showAllMoves, litCells, setReferee, newGame, simulate, solve,
    idle: () => S.inflight === 0,
  };
  // A request that got no answer at all (the server stopped): say so, not nothing.
  window.addEventListener("unhandledrejection", (event) => {
    showError(`the server did not answer (${event.reason}): is qwirkle-core serve still running?`);
  });
  window.addEventListener("DOMContentLoaded", start);
})();
