// The SVG board. Draws a 26-number board in the view of the side at the bottom (its checkers
// positive, its bar at 25, the other side's bar at 0) and reports clicks on points, the bar and
// the bearing-off tray in that side's numbering (25 = bar, 0 = off). A checker may also be dragged
// (mouse, pen or touch, through pointer events) when `drag` is set: drag.dragFrom(point) gives the
// points it may be dropped on (null: it may not move), drag.drop(from, to) gets where it was let go.
// No rules here.

const NS = "http://www.w3.org/2000/svg";
const W = 760, H = 600, FRAME = 20, POINT_W = 50, POINT_H = 240, BAR_W = 60, TRAY_X = 700, TRAY_W = 60;
const LEFT = FRAME, RIGHT = FRAME + 6 * POINT_W + BAR_W, BAR_X = FRAME + 6 * POINT_W;
const R = 22, MAX_STACK = 5;

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// Left x of point p (1..24) and whether it is in the bottom row.
function pointPlace(p) {
  if (p <= 6) return { x: RIGHT + (6 - p) * POINT_W, bottom: true };
  if (p <= 12) return { x: LEFT + (12 - p) * POINT_W, bottom: true };
  if (p <= 18) return { x: LEFT + (p - 13) * POINT_W, bottom: false };
  return { x: RIGHT + (p - 19) * POINT_W, bottom: false };
}

function checker(parent, cx, cy, mine, label = "") {
  el("circle", { cx, cy, r: R, class: mine ? "checker mine" : "checker theirs", "data-testid": "checker" }, parent);
  if (label) {
    const t = el("text", { x: cx, y: cy + 6, class: mine ? "count mine" : "count theirs", "text-anchor": "middle" }, parent);
    t.textContent = label;
  }
}

const DRAG_START = 6; // screen pixels a pressed pointer moves before a press becomes a drag

// The point (1..24, 25 = bar, 0 = off) under board coordinates (x, y), or null.
function pointAt(x, y) {
  if (y < 0 || y > H) return null;
  if (x >= BAR_X && x < BAR_X + BAR_W) return 25;
  if (x >= TRAY_X && x < TRAY_X + TRAY_W) return 0;
  const bottom = y >= H / 2;
  for (const [x0, low, high] of [[LEFT, 12, 13], [RIGHT, 6, 19]]) {
    const i = Math.floor((x - x0) / POINT_W);
    if (i >= 0 && i < 6) return bottom ? low - i : high + i;
  }
  return null;
}

// A stack of n checkers from (cx, y0) growing by dy; more than MAX_STACK shows the count on the last.
function stack(parent, cx, y0, dy, n, mine) {
  const shown = Math.min(n, MAX_STACK);
  for (let i = 0; i < shown; i++) {
    checker(parent, cx, y0 + i * dy, mine, i === shown - 1 && n > MAX_STACK ? String(n) : "");
  }
}

function die(parent, x, y, value, mine) {
  const g = el("g", { class: mine ? "die mine" : "die theirs" }, parent);
  el("rect", { x, y, width: 40, height: 40, rx: 7 }, g);
  const pips = { 1: [[20, 20]], 2: [[10, 10], [30, 30]], 3: [[10, 10], [20, 20], [30, 30]],
    4: [[10, 10], [30, 10], [10, 30], [30, 30]], 5: [[10, 10], [30, 10], [20, 20], [10, 30], [30, 30]],
    6: [[10, 9], [30, 9], [10, 20], [30, 20], [10, 31], [30, 31]] }[value] || [];
  for (const [px, py] of pips) el("circle", { cx: x + px, cy: y + py, r: 4, class: "pip" }, g);
}

// Where a checker of the bottom side sits on `point` as the `index`-th of its stack (0 = the first).
function checkerAt(point, index) {
  const i = Math.min(Math.max(index, 0), MAX_STACK - 1);
  if (point === 25) return { x: BAR_X + BAR_W / 2, y: H / 2 - 40 - R - i * 2 * R };
  if (point === 0) return { x: TRAY_X + TRAY_W / 2, y: H - FRAME - 60 };
  const { x, bottom } = pointPlace(point);
  return { x: x + POINT_W / 2, y: bottom ? H - FRAME - R - i * 2 * R : FRAME + R + i * 2 * R };
}

// Arrows of plays, each a list of steps ({from, to}) of the bottom side made in turn on `board`: from the
// checker that moves to where it lands, bent towards the middle when both ends are in one half.
function arrows(svg, board, plays) {
  const defs = el("defs", {}, svg);
  for (const kind of ["better", "mine"]) {
    const marker = el("marker", { id: `arrowhead-${kind}`, viewBox: "0 0 10 10", refX: 7, refY: 5,
      markerWidth: 4, markerHeight: 4, orient: "auto-start-reverse" }, defs);
    el("path", { d: "M0,0 L10,5 L0,10 z", class: `arrowhead ${kind}` }, marker);
  }
  for (const { steps, kind } of plays) {
    const b = board.slice();
    for (const { from, to } of steps) {
      const a = checkerAt(from, b[from] - 1);
      b[from] -= 1;
      if (to !== 0) b[to] = Math.max(b[to], 0) + 1;
      const z = checkerAt(to, to === 0 ? 0 : b[to] - 1);
      const sameHalf = (a.y < H / 2) === (z.y < H / 2);
      const bend = sameHalf && from !== 25 && to !== 0 ? Math.min(110, Math.abs(z.x - a.x) * 0.35) * (a.y < H / 2 ? 1 : -1) : 0;
      const cx = (a.x + z.x) / 2, cy = (a.y + z.y) / 2 + bend;
      el("path", { d: `M${a.x},${a.y} Q${cx},${cy} ${z.x},${z.y}`, class: `arrow ${kind}`,
        "marker-end": `url(#arrowhead-${kind})`, "data-testid": kind === "better" ? "tutor-arrow" : "played-arrow",
        "data-from": from, "data-to": to }, svg);
    }
  }
}

export class Board {
  constructor(svg, onClick) {
    this.svg = svg;
    this.onClick = onClick;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.setAttribute("role", "img");
    this.drag = null;
    this.last = null;
    this.press = null;
    this.swallowClick = false;
    svg.addEventListener("pointerdown", (e) => this.pointerDown(e));
    // The release that ends a drag may also make a click (on the points' common parent): not a click.
    svg.addEventListener("click", (e) => {
      if (this.swallowClick) { e.stopPropagation(); e.preventDefault(); }
      this.swallowClick = false;
    }, true);
  }

  // The point under a pointer event, or null.
  pointOf(e) {
    const matrix = this.svg.getScreenCTM();
    if (!matrix) return null;
    const at = new DOMPoint(e.clientX, e.clientY).matrixTransform(matrix.inverse());
    return pointAt(at.x, at.y);
  }

  pointerDown(e) {
    this.swallowClick = false;
    if (!this.drag || this.press || (e.pointerType === "mouse" && e.button !== 0)) return;
    const from = this.pointOf(e);
    if (from === null || from === 0) return;
    const press = { id: e.pointerId, from, x: e.clientX, y: e.clientY, ghost: null, dead: false };
    const move = (ev) => { if (ev.pointerId === press.id) this.pointerMove(press, ev); };
    const end = (ev) => {
      if (ev.pointerId !== press.id) return;
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", end);
      window.removeEventListener("pointercancel", end);
      this.press = null;
      if (!press.ghost) return;
      this.swallowClick = true; // until the click this release makes, or the next press
      this.drag.drop(press.from, ev.type === "pointerup" ? this.pointOf(ev) : null);
    };
    this.press = press;
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", end);
    window.addEventListener("pointercancel", end);
  }

  pointerMove(press, e) {
    if (press.dead) return;
    if (!press.ghost) {
      if (Math.hypot(e.clientX - press.x, e.clientY - press.y) < DRAG_START) return;
      const targets = this.drag.dragFrom(press.from);
      if (!targets || !this.last) { press.dead = true; return; }
      // Draw the board with the checker lifted from its point and the places it may go.
      this.draw(this.last.board, { ...this.last.opts, selected: press.from, targets, lifted: press.from });
      press.ghost = el("circle", { r: R, class: "checker mine dragging", "data-testid": "dragged-checker",
        "pointer-events": "none" }, this.svg);
    }
    e.preventDefault();
    const at = new DOMPoint(e.clientX, e.clientY).matrixTransform(this.svg.getScreenCTM().inverse());
    press.ghost.setAttribute("cx", at.x);
    press.ghost.setAttribute("cy", at.y);
  }

  // board: 26 numbers; opts: {dice, diceMine, cube, cubeOwner ("me"|"them"|null), selected, targets: Set, caption,
  // variant: "long" for long nardy (named to screen readers)}
  // lifted: a point drawn with one checker fewer (the one being dragged); movable: checkers may be dragged;
  // arrows: plays drawn as arrows, [{steps: [{from, to}], kind: "better" (the tutor's) | "mine"}].
  draw(board, opts = {}) {
    const svg = this.svg;
    this.last = { board, opts };
    svg.style.touchAction = opts.movable ? "none" : "";
    svg.style.userSelect = opts.movable ? "none" : "";
    const shown = (p) => Math.abs(board[p]) - (opts.lifted === p ? 1 : 0);
    svg.replaceChildren();
    svg.setAttribute("aria-label", opts.variant === "long" ? "long nardy board" : "backgammon board");
    el("rect", { x: 0, y: 0, width: W, height: H, class: "frame" }, svg);
    el("rect", { x: LEFT, y: FRAME, width: 6 * POINT_W, height: H - 2 * FRAME, class: "felt" }, svg);
    el("rect", { x: RIGHT, y: FRAME, width: 6 * POINT_W, height: H - 2 * FRAME, class: "felt" }, svg);
    const targets = opts.targets || new Set();

    for (let p = 1; p <= 24; p++) {
      const { x, bottom } = pointPlace(p);
      const g = el("g", { "data-testid": `point-${p}`, class: "point", "data-point": p }, svg);
      if (opts.selected === p) g.classList.add("selected");
      if (targets.has(p)) g.classList.add("target");
      el("rect", { x, y: bottom ? H / 2 : FRAME, width: POINT_W, height: H / 2 - FRAME, class: "hit-area" }, g);
      const tipY = bottom ? H - FRAME - POINT_H : FRAME + POINT_H;
      const baseY = bottom ? H - FRAME : FRAME;
      el("polygon", { points: `${x},${baseY} ${x + POINT_W},${baseY} ${x + POINT_W / 2},${tipY}`,
        class: `tri ${p % 2 ? "odd" : "even"}` }, g);
      const label = el("text", { x: x + POINT_W / 2, y: bottom ? H - 5 : 15, class: "label", "text-anchor": "middle" }, g);
      label.textContent = String(p);
      const n = board[p];
      if (n) {
        const cx = x + POINT_W / 2;
        stack(g, cx, bottom ? H - FRAME - R : FRAME + R, bottom ? -2 * R : 2 * R, shown(p), n > 0);
      }
      g.addEventListener("click", (e) => this.onClick && this.onClick(p, e));
      g.addEventListener("contextmenu", (e) => { if (this.onClick && this.onClick(p, e, true)) e.preventDefault(); });
    }

    const bar = el("g", { "data-testid": "bar", class: "bar", "data-point": 25 }, svg);
    if (opts.selected === 25) bar.classList.add("selected");
    el("rect", { x: BAR_X, y: 0, width: BAR_W, height: H, class: "bar-rect" }, bar);
    // The bottom side's checkers wait on the upper half (they enter in the top right), the other's below.
    if (board[25] > 0) stack(bar, BAR_X + BAR_W / 2, H / 2 - 40 - R, -2 * R, shown(25), true);
    if (board[0] < 0) stack(bar, BAR_X + BAR_W / 2, H / 2 + 40 + R, 2 * R, -board[0], false);
    bar.addEventListener("click", (e) => this.onClick && this.onClick(25, e));
    bar.addEventListener("contextmenu", (e) => { if (this.onClick && this.onClick(25, e, true)) e.preventDefault(); });

    const mineOff = 15 - board.reduce((s, v) => s + Math.max(v, 0), 0);
    const theirsOff = 15 - board.reduce((s, v) => s + Math.max(-v, 0), 0);
    el("rect", { x: TRAY_X, y: FRAME, width: TRAY_W, height: H / 2 - FRAME - 10, class: "tray" }, svg);
    const off = el("g", { "data-testid": "off", class: "off", "data-point": 0 }, svg);
    if (targets.has(0)) off.classList.add("target");
    el("rect", { x: TRAY_X, y: H / 2 + 10, width: TRAY_W, height: H / 2 - FRAME - 10, class: "tray" }, off);
    for (let i = 0; i < mineOff; i++) {
      el("rect", { x: TRAY_X + 8, y: H - FRAME - 14 - i * 16, width: TRAY_W - 16, height: 12, rx: 3, class: "borne mine" }, off);
    }
    for (let i = 0; i < theirsOff; i++) {
      el("rect", { x: TRAY_X + 8, y: FRAME + 2 + i * 16, width: TRAY_W - 16, height: 12, rx: 3, class: "borne theirs" }, svg);
    }
    off.addEventListener("click", () => this.onClick && this.onClick(0));

    if (opts.dice) {
      const x0 = opts.diceMine === false ? LEFT + 3 * POINT_W - 45 : RIGHT + 3 * POINT_W - 45;
      opts.dice.forEach((d, i) => die(svg, x0 + i * 50, H / 2 - 20, d, opts.diceMine !== false));
    }
    if (opts.cube) {
      const y = opts.cubeOwner === "me" ? H - FRAME - 60 : opts.cubeOwner === "them" ? FRAME + 10 : H / 2 - 25;
      const g = el("g", { class: "cube" }, svg);
      el("rect", { x: BAR_X + 5, y, width: 50, height: 50, rx: 6 }, g);
      const t = el("text", { x: BAR_X + 30, y: y + 33, "text-anchor": "middle" }, g);
      t.textContent = String(opts.cubeOwner ? opts.cube : Math.max(opts.cube, 64));
    }
    if (opts.arrows) arrows(svg, board, opts.arrows);
    if (opts.caption) {
      const t = el("text", { x: LEFT + 6 * POINT_W / 2, y: H / 2 + 6, class: "caption", "text-anchor": "middle" }, svg);
      t.textContent = opts.caption;
    }
  }
}

// Long nardy: the other side's number of the mover's point p (each side's head is its 24, the other's 12).
const otherPoint = (p) => ((p + 11) % 24) + 1;

// The same board seen by the other side: backgammon's numbering reversed; long nardy's board turned half
// round (engine/long_nardy/board.py's flip).
export function flip(board, variant = "backgammon") {
  if (variant === "long") return board.map((v, p) => (p === 0 || p === 25 ? v : -board[otherPoint(p)]));
  return board.slice().reverse().map((v) => -v);
}
