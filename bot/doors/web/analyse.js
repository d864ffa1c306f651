// Analyse mode: a typed Position ID, PositionID:MatchID or XGID, dice or none; the ranked plays
// (click one to see the position after it) or the cube decision, from the server's /v1 endpoints.
// A long nardy Position ID (13 characters, optionally :MatchID) is told by its form and asked with
// variant=long; its hint table has the game's own columns (results.js).
// Set-up mode: checkers clicked onto the board, and the side on roll, dice, cube, score, match length
// and Crawford chosen; the server writes them as a Position ID and Match ID (GET /v1/setup) as they
// change. "Play from here" starts a game against the bot from the situation set up or analysed.
// "Score matrix": the cube decision of the position's side on roll at every score of an N-point match,
// and for money (GET /v1/cube/matrix), as a colour-coded table that scrolls inside its own box.

import { get, ApiError } from "./api.js";
import { flip } from "./board.js";
import { showPlays, showCube } from "./results.js";

export const START_ID = "4HPwATDgc/ABMA";
export const START_BOARD = [0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0];
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
// A long nardy Position ID is 13 characters (backgammon's 14), and may carry a Match ID as the analysis of a
// long nardy match names its decisions.
const LONG_POSITION = /^[A-Za-z0-9+/]{13}(:[A-Za-z0-9+/]{12})?$/;

// The game of a position text: "long" (long nardy) or "backgammon".
export function gameOf(text) {
  return LONG_POSITION.test(text.trim()) ? "long" : "backgammon";
}

// The query parameter naming a game: none for backgammon, the default.
const variantParam = (variant) => (variant === "long" ? "long" : null);

// The server's bounds of a matrix at 1-ply (bot/doors/cube_views.py): longer ones are asked at 0-ply.
const MATRIX_ONE_PLY_LENGTH = 7;

// The colour class of a matrix label (bot/play/score_matrix.py's LABELS): no double, double and take,
// double and pass, too good, and no decision (dead cube, the Crawford game).
export function verdictClass(label) {
  if (/^TG/.test(label)) return "v-too-good";
  if (/^N/.test(label)) return "v-no-double";
  if (/^R?D\/T$|^R?D\/B$/.test(label)) return "v-double-take";
  if (/^R?D\/P$/.test(label)) return "v-double-pass";
  return "v-none";
}

const milli = (x) => (x === null || x === undefined ? "" : `${x >= 0 ? "+" : ""}${Math.round(1000 * x)}`);

function matrixCell(row, cell) {
  const td = document.createElement("td");
  td.className = `matrix-cell ${verdictClass(cell.label)}`;
  td.dataset.testid = "matrix-cell";
  td.title = cell.double_margin === undefined ? cell.name
    : `${cell.name}: ${cell.action}; double ${milli(cell.double_margin)}, take ${milli(cell.take_margin)} (x1000)`;
  const verdict = document.createElement("span");
  verdict.className = "verdict";
  verdict.dataset.testid = "matrix-verdict";
  verdict.textContent = cell.label;
  td.appendChild(verdict);
  if (cell.double_margin !== undefined && verdictClass(cell.label) !== "v-none") {
    const margin = document.createElement("span");
    margin.className = "margin";
    margin.textContent = milli(cell.double_margin);
    td.appendChild(margin);
  }
  row.appendChild(td);
}

// answer: GET /v1/cube/matrix's; crawford: show the Crawford game (no cube) at the 1-away scores.
export function showMatrix(container, answer, crawford) {
  container.replaceChildren();
  const box = document.createElement("div");
  box.className = "score-matrix";
  box.dataset.testid = "score-matrix-result";
  const m = answer.matrix, n = m.length;
  const title = document.createElement("p");
  title.className = "verdict";
  const game = answer.variant === "long" ? " (long nardy)" : "";
  title.textContent = `Score matrix of ${answer.position_id}${game}, ${n}-point match, ${answer.plies}-ply`;
  const help = document.createElement("p");
  help.className = "help";
  help.textContent = "The side on roll's cube decision, cube centred. Rows: its points to go; columns: the " +
    `opponent's. Under each: doubling minus not doubling, x1000. 1-away: ${crawford ? "the Crawford game" : "post-Crawford"}.`;
  const crawfordCells = new Map();
  let k = 0;
  for (let a = 1; a <= n; a++) {
    for (let b = 1; b <= n; b++) if ((a === 1) !== (b === 1)) crawfordCells.set(`${a},${b}`, m.crawford[k++]);
  }
  const table = document.createElement("table");
  table.className = "matrix";
  table.dataset.testid = "matrix-table";
  const head = table.createTHead().insertRow();
  const corner = document.createElement("th");
  corner.textContent = "away";
  head.appendChild(corner);
  for (let b = 1; b <= n; b++) {
    const th = document.createElement("th");
    th.textContent = String(b);
    th.scope = "col";
    head.appendChild(th);
  }
  const body = table.createTBody();
  m.rows.forEach((cells, i) => {
    const row = body.insertRow();
    const th = document.createElement("th");
    th.textContent = String(i + 1);
    th.scope = "row";
    row.appendChild(th);
    cells.forEach((c, j) => matrixCell(row, (crawford && crawfordCells.get(`${i + 1},${j + 1}`)) || c));
  });
  const scroll = document.createElement("div");
  scroll.className = "matrix-scroll";
  scroll.appendChild(table);
  const money = document.createElement("table");
  money.className = "matrix-money";
  money.dataset.testid = "matrix-money";
  for (const c of answer.money) {
    const row = money.insertRow();
    const name = document.createElement("th");
    name.textContent = `Money, ${c.name}`;
    name.scope = "row";
    row.appendChild(name);
    matrixCell(row, c);
    const take = document.createElement("td");
    take.textContent = `take ${milli(c.take_margin)}`;
    row.appendChild(take);
  }
  const legend = document.createElement("p");
  legend.className = "help matrix-legend";
  for (const [label, text] of [["ND/T", "no double"], ["D/T", "double, take"], ["D/P", "double, pass"],
    ["TG/P", "too good to double"], ["dead", "no cube decision"]]) {
    const key = document.createElement("span");
    key.className = verdictClass(label);
    key.textContent = `${label} ${text}`;
    legend.append(key, " ");
  }
  box.append(title, help, legend, scroll, money);
  container.appendChild(box);
}

// GNU Backgammon's Position ID of a board (26 numbers, the side on roll's view, as engine/position_id.py):
// the side not on roll first, then the side on roll; points 1..24 in its own numbering, then its bar;
// a 1 per checker and a 0 after each point; bits packed least-significant first into 10 bytes, Base64.
export function positionId(board) {
  const counts = [];
  for (let p = 1; p <= 24; p++) counts.push(Math.max(-board[25 - p], 0));
  counts.push(Math.max(-board[0], 0));
  for (let p = 1; p <= 24; p++) counts.push(Math.max(board[p], 0));
  counts.push(Math.max(board[25], 0));
  const bits = [];
  for (const n of counts) {
    for (let i = 0; i < n; i++) bits.push(1);
    bits.push(0);
  }
  const bytes = new Array(10).fill(0);
  bits.slice(0, 80).forEach((bit, i) => { if (bit) bytes[i >> 3] |= 1 << (i & 7); });
  let text = "";
  for (let i = 0; i < 12; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] || 0) << 8) | (bytes[i + 2] || 0);
    text += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + B64[(n >> 6) & 63] + B64[n & 63];
  }
  return text.slice(0, 14);
}

export class Analyse {
  constructor(ui) {
    this.ui = ui;
    this.shown = null; // {board, dice, positionId, matchId, caption, cube: GET /v1/game/board's answer}
    this.setup = null; // the board being set up (26 numbers, the bottom side's view), or null
    this.ids = null; // GET /v1/setup's answer for the situation set up, or null while it is impossible
    this.asked = 0; // the number of the latest /v1/setup request: an older answer is dropped
    this.matrixAsked = 0; // the same for /v1/cube/matrix
    const el = ui.el;
    document.getElementById("score-matrix").addEventListener("click", () => this.scoreMatrix());
    for (const field of [el.setupOnRoll, el.setupCube, el.setupOwner, el.setupLength, el.setupScoreBottom,
      el.setupScoreTop, el.setupCrawford]) {
      field.addEventListener("change", () => this.changed());
    }
    el.diceInput.addEventListener("input", () => { if (this.setup) this.changed(); });
    // Keep the cube possible as it is chosen: centred on 1, owned on 2 or more (after a take, by the side
    // not on roll), none in the Crawford game.
    el.setupCube.addEventListener("change", () => {
      const notOnRoll = el.setupOnRoll.value === "bottom" ? "top" : "bottom";
      if (el.setupCube.value !== "1" && !el.setupOwner.value) el.setupOwner.value = notOnRoll;
      if (el.setupCube.value === "1") el.setupOwner.value = "";
    }, true);
    el.setupOwner.addEventListener("change", () => {
      if (!el.setupOwner.value) el.setupCube.value = "1";
      else if (el.setupCube.value === "1") el.setupCube.value = "2";
    }, true);
    el.setupCrawford.addEventListener("change", () => {
      if (el.setupCrawford.checked) { el.setupCube.value = "1"; el.setupOwner.value = ""; }
    }, true);
  }

  // Set-up mode: clicks on the board add checkers (the side chosen, shift- or right-click the other);
  // a click on the other side's checkers takes one of them off. It starts from the position shown,
  // its cube and score, with the side on roll at the bottom.
  toggleSetup() {
    const el = this.ui.el;
    if (this.setup) {
      this.setup = null;
    } else {
      // Set-up writes backgammon's IDs (GET /v1/setup): a long nardy position shown is not carried over.
      const s = this.shown && !this.shown.caption && this.shown.variant !== "long" ? this.shown : null;
      this.setup = (s ? s.board : START_BOARD).slice();
      this.fill(s ? s.cube : null);
      this.ui.clearResults();
      this.shown = null;
    }
    el.setup.classList.toggle("active", !!this.setup);
    el.setup.setAttribute("aria-pressed", String(!!this.setup));
    el.setupTools.hidden = el.setupFields.hidden = !this.setup;
    if (this.setup) this.changed();
    else this.render();
  }

  // The set-up fields from a GET /v1/game/board answer (side on roll at the bottom), or a money game's.
  fill(b) {
    const el = this.ui.el;
    el.setupOnRoll.value = "bottom";
    el.setupCube.value = String(b ? b.cube : 1);
    el.setupOwner.value = b && b.cube_owner ? (b.cube_owner === "on_roll" ? "bottom" : "top") : "";
    el.setupLength.value = String(b ? b.match_length : 0);
    el.setupScoreBottom.value = String(b ? b.score[0] : 0);
    el.setupScoreTop.value = String(b ? b.score[1] : 0);
    el.setupCrawford.checked = !!(b && b.crawford);
  }

  clearSetup(board = null) {
    if (!this.setup) return;
    this.setup = board ? board.slice() : new Array(26).fill(0);
    this.changed();
  }

  // point: 1..24, 25 the bar, 0 off; returns true when the click was used (a right-click's menu is then kept shut).
  setupClick(point, event, context = false) {
    if (!this.setup || this.ui.mode !== "analyse" || point === 0) return false;
    const b = this.setup;
    const bottom = (this.ui.el.setupSide.value === "bottom") !== (context || (event && event.shiftKey));
    const sign = bottom ? 1 : -1;
    const index = point === 25 ? (bottom ? 25 : 0) : point;
    const total = b.reduce((s, v) => s + Math.max(sign * v, 0), 0);
    if (b[index] * sign < 0) b[index] += sign; // take one of the other side's checkers off
    else if (total >= 15) {
      this.ui.showError(`${bottom ? "bottom" : "top"} already has 15 checkers`);
      return true;
    } else b[index] += sign;
    this.ui.clearError();
    this.changed();
    return true;
  }

  // The dice typed, as two digits, or "" (none: a cube decision).
  typedDice() {
    const text = this.ui.el.diceInput.value.replace(/\s+/g, "");
    return /^[1-6]{2}$/.test(text) ? text : "";
  }

  // The situation set up, as GET /v1/setup's query.
  setupQuery() {
    const el = this.ui.el;
    const query = {
      checkers: positionId(this.setup), on_roll: el.setupOnRoll.value, dice: this.typedDice(),
      cube: Number(el.setupCube.value), cube_owner: el.setupOwner.value, length: Number(el.setupLength.value) || 0,
      score_bottom: Number(el.setupScoreBottom.value) || 0, score_top: Number(el.setupScoreTop.value) || 0,
      crawford: el.setupCrawford.checked,
    };
    const typed = el.diceInput.value.replace(/\s+/g, "");
    if (typed && !query.dice) query.dice = typed; // the server names what is wrong with it
    return query;
  }

  changed() {
    this.render();
    if (this.setup) this.sync();
  }

  // The Position ID and Match ID of the situation set up, from the server; null (the error shown) when impossible.
  // A board being set up often has a side with no checker yet: no game, but no mistake either, so it is
  // said quietly (and named as an error only when it is analysed or played).
  async sync(quiet = true) {
    const ui = this.ui, el = ui.el, asked = ++this.asked;
    const sides = [this.setup.some((v) => v > 0), this.setup.some((v) => v < 0)];
    if (!sides[0] || !sides[1]) {
      const message = `the ${sides[0] ? "top" : "bottom"} side needs a checker on the board`;
      this.ids = null;
      if (quiet) ui.notice(`Setting up: ${message}`);
      else ui.showError(message);
      this.render();
      return null;
    }
    ui.notice("");
    try {
      const ids = await get("/v1/setup", this.setupQuery());
      if (asked !== this.asked || !this.setup) return asked === this.asked ? ids : null;
      this.ids = ids;
      el.positionInput.value = ids.game;
      ui.clearError();
      this.render();
      return ids;
    } catch (e) {
      if (asked === this.asked) {
        this.ids = null;
        ui.showError(e.message);
        this.render();
      }
      return null;
    }
  }

  async analyse() {
    const ui = this.ui, el = ui.el;
    if (this.setup && !(await this.sync(false))) return;
    const position = el.positionInput.value.trim() || START_ID;
    const typedDice = el.diceInput.value.replace(/\s+/g, "");
    const plies = Number(el.depth.value) || 0;
    const variant = this.setup ? "backgammon" : gameOf(position);
    el.analyse.disabled = true;
    try {
      const b = await get("/v1/game/board", { position, variant: variantParam(variant) });
      const dice = typedDice || (b.dice ? `${b.dice[0]}${b.dice[1]}` : "");
      const matchId = position.includes(":") && !/^xgid=/i.test(position) ? position.split(":")[1] : "";
      const shown = { board: b.board, dice: null, positionId: b.position_id, matchId, cube: b, variant };
      ui.clearResults();
      const query = { position, plies, variant: variantParam(variant) };
      if (dice) {
        const answer = await get("/v1/moves", { ...query, dice });
        this.shown = { ...shown, dice: answer.dice };
        showPlays(el.results, answer, (m) => this.after(m));
      } else {
        const answer = await get("/v1/cube", query);
        this.shown = shown;
        showCube(el.results, answer);
      }
      ui.clearError();
      ui.setMode("analyse");
      if (this.setup) this.toggleSetup();
      else this.render();
    } catch (e) {
      ui.showError(e.message);
    } finally {
      el.analyse.disabled = false;
    }
  }

  // The query naming the position whose side on roll the score matrix is for (the one set up, shown, or
  // typed) and its game; null when the set-up position is not one.
  async matrixQuery() {
    if (this.setup) {
      const ids = await this.sync(false);
      return ids ? { position: ids.position_id } : null;
    }
    const position = this.shown ? this.shown.positionId : this.ui.el.positionInput.value.trim() || START_ID;
    return { position, variant: variantParam(gameOf(position)) };
  }

  async scoreMatrix() {
    const ui = this.ui, el = ui.el;
    const button = document.getElementById("score-matrix");
    const length = Number(document.getElementById("matrix-length").value);
    if (!Number.isInteger(length) || length < 3 || length > 25) {
      ui.showError("the score matrix's match length is 3 to 25 points");
      return;
    }
    const crawford = document.getElementById("matrix-crawford").checked;
    const plies = Number(el.depth.value) >= 1 && length <= MATRIX_ONE_PLY_LENGTH ? 1 : 0;
    const asked = ++this.matrixAsked;
    button.disabled = true;
    try {
      const query = await this.matrixQuery();
      if (!query) return;
      const answer = await get("/v1/cube/matrix", { ...query, length, plies });
      if (asked !== this.matrixAsked) return;
      ui.clearError();
      showMatrix(el.results, answer, crawford);
    } catch (e) {
      if (asked === this.matrixAsked) ui.showError(e.message);
    } finally {
      button.disabled = false;
    }
  }

  // GET /v1/setup's query for the situation analysed (its side on roll at the bottom; after a play, the
  // other side on roll), or for the position typed when none is shown yet.
  async shownQuery() {
    let s = this.shown;
    if (!s) {
      const b = await get("/v1/game/board", { position: this.ui.el.positionInput.value.trim() || START_ID });
      s = { board: b.board, dice: b.dice, cube: b };
    }
    const b = s.cube;
    const query = { checkers: positionId(s.board), on_roll: s.caption ? "top" : "bottom", cube: b.cube,
      length: b.match_length, score_bottom: b.score[0], score_top: b.score[1], crawford: b.crawford };
    if (b.cube_owner) query.cube_owner = b.cube_owner === "on_roll" ? "bottom" : "top";
    if (s.dice && !s.caption) query.dice = `${s.dice[0]}${s.dice[1]}`;
    return query;
  }

  // The web game token (bot/doors/codecs.py's long:POSITIONID:PHASE:TURN:FIRST:DICE:CUBE:OWNER:HUMAN-BOT:
  // CUBERULE:LENGTH) of the long nardy situation shown: you on roll with its dice, or nardy on roll after a play.
  longToken() {
    const s = this.shown, b = s.cube, after = !!s.caption; // b: the bottom side (yours) on roll
    const turn = after ? "b" : "h";
    const owner = b.cube_owner === "on_roll" ? "h" : b.cube_owner === "opponent" ? "b" : "-";
    const dice = s.dice && !after ? `${s.dice[0]}${s.dice[1]}` : "-";
    const away = b.match_length && Math.max(...b.score) === b.match_length - 1;
    const length = `${b.match_length}${away ? (b.crawford ? "c" : "p") : ""}`;
    return ["long", s.positionId, dice === "-" ? "roll" : "move", turn, turn, dice, b.cube, owner,
      `${b.score[0]}-${b.score[1]}`, "doubling", length].join(":");
  }

  // A game against the bot from the situation set up or analysed: the bottom side is yours.
  async playFromHere() {
    const ui = this.ui;
    try {
      if (!this.setup && this.shown && this.shown.variant === "long") {
        ui.clearError();
        ui.playFrom(this.longToken());
        return;
      }
      const ids = this.setup ? await this.sync(false) : await get("/v1/setup", await this.shownQuery());
      if (!ids) return;
      if (this.setup) this.toggleSetup();
      ui.clearError();
      ui.playFrom(ids.game);
    } catch (e) {
      ui.showError(e instanceof ApiError ? e.message : String(e));
    }
  }

  async after(m) {
    try {
      const variant = this.shown.variant;
      const b = await get("/v1/game/board", { position: m.position_id, variant: variantParam(variant) });
      // Seen by the side that played (the Position ID after a play has the opponent on roll).
      this.shown = { ...this.shown, board: flip(b.board, variant), positionId: m.position_id, matchId: "",
        caption: `after ${m.move || "no move"}` };
      this.ui.clearError();
      this.render();
    } catch (e) {
      this.ui.showError(e.message);
    }
  }

  renderSetup() {
    const ui = this.ui, el = ui.el, b = this.setup;
    const pips = [0, 0];
    for (let p = 1; p <= 25; p++) pips[0] += Math.max(b[p], 0) * p;
    for (let p = 0; p <= 24; p++) pips[1] += Math.max(-b[p], 0) * (25 - p);
    const q = this.setupQuery();
    const bottom = q.on_roll === "bottom";
    const dice = q.dice && /^[1-6]{2}$/.test(q.dice) ? [Number(q.dice[0]), Number(q.dice[1])] : null;
    ui.board.draw(b, {
      dice, diceMine: bottom, cube: q.crawford ? 0 : q.cube,
      cubeOwner: q.cube_owner === "bottom" ? "me" : q.cube_owner === "top" ? "them" : null,
      caption: dice ? "" : "set up: click to add", // the dice would hide it
    });
    const ids = this.ids;
    ui.setIds(ids ? ids.position_id : positionId(bottom ? b : flip(b)), ids ? ids.match_id : "");
    el.dice.textContent = dice ? dice.join("") : "";
    el.turn.textContent = `Setting up: ${q.on_roll} on roll${dice ? "" : " (no dice: a cube decision)"}`;
    el.score.textContent = q.length
      ? `Score ${q.score_bottom}-${q.score_top} in a ${q.length}-point match${q.crawford ? " (Crawford game)" : ""}`
      : "Money game";
    el.pips.textContent = `Pips: bottom ${pips[0]}, top ${pips[1]}`;
    el.cubeInfo.textContent = `Cube ${q.cube}${q.cube_owner ? `, ${q.cube_owner}'s` : ", centred"}`;
  }

  render() {
    const ui = this.ui, el = ui.el;
    if (ui.mode !== "analyse") return;
    if (this.setup) {
      this.renderSetup();
      return;
    }
    if (!this.shown) {
      ui.drawStart("");
      return;
    }
    const s = this.shown, b = s.cube;
    ui.board.draw(s.board, {
      dice: s.caption ? null : s.dice,
      cube: b.match_length && b.crawford ? 0 : b.cube,
      cubeOwner: b.cube_owner === "on_roll" ? "me" : b.cube_owner === "opponent" ? "them" : null,
      caption: s.caption || "",
      variant: s.variant,
    });
    ui.setIds(s.positionId, s.matchId);
    el.dice.textContent = s.dice && !s.caption ? `${s.dice[0]}${s.dice[1]}` : "";
    const game = s.variant === "long" ? " (long nardy)" : "";
    el.turn.textContent = `${s.caption ? `Position ${s.caption}` : "Side on roll at the bottom"}${game}`;
    el.score.textContent = b.match_length ? `Score ${b.score[0]}-${b.score[1]} in a ${b.match_length}-point match` : "Money game";
    el.pips.textContent = `Pips: bottom ${b.pips[0]}, top ${b.pips[1]}`;
    el.cubeInfo.textContent = `Cube ${b.cube}${b.cube_owner ? (b.cube_owner === "on_roll" ? ", bottom's" : ", top's") : ", centred"}`;
  }
}
