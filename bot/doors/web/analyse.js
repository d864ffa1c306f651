// Analyse mode: a typed Position ID, PositionID:MatchID or XGID, dice or none; the ranked plays
// (click one to see the position after it) or the cube decision, from the server's /v1 endpoints.

import { get } from "./api.js";
import { flip } from "./board.js";
import { showPlays, showCube } from "./results.js";

export const START_ID = "4HPwATDgc/ABMA";
export const START_BOARD = [0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0];
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

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
    this.shown = null; // {board, dice, positionId, matchId, caption}
    this.setup = null; // the board being set up (26 numbers, the side on roll's view), or null
  }

  // Set-up mode: clicks on the board add checkers (the side chosen, shift- or right-click the other);
  // a click on the other side's checkers takes one of them off. The Position ID goes into the input.
  toggleSetup() {
    const el = this.ui.el;
    if (this.setup) {
      this.setup = null;
    } else {
      this.setup = (this.shown && !this.shown.caption ? this.shown.board : START_BOARD).slice();
      this.ui.clearResults();
      this.shown = null;
    }
    el.setup.classList.toggle("active", !!this.setup);
    el.setup.setAttribute("aria-pressed", String(!!this.setup));
    el.setupTools.hidden = !this.setup;
    this.changed();
  }

  clearSetup() {
    if (!this.setup) return;
    this.setup = new Array(26).fill(0);
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

  changed() {
    const el = this.ui.el;
    if (this.setup) {
      el.positionInput.value = positionId(this.setup);
      if (!el.diceInput.value.trim()) el.diceInput.value = "";
    }
    this.render();
  }

  async analyse() {
    const ui = this.ui, el = ui.el;
    const position = el.positionInput.value.trim() || START_ID;
    const typedDice = el.diceInput.value.replace(/\s+/g, "");
    const plies = Number(el.depth.value) || 0;
    el.analyse.disabled = true;
    try {
      const b = await get("/v1/game/board", { position });
      const dice = typedDice || (b.dice ? `${b.dice[0]}${b.dice[1]}` : "");
      const matchId = position.includes(":") && !/^xgid=/i.test(position) ? position.split(":")[1] : "";
      ui.clearResults();
      if (dice) {
        const answer = await get("/v1/moves", { position, dice, plies });
        this.shown = { board: b.board, dice: answer.dice, positionId: b.position_id, matchId, cube: b };
        showPlays(el.results, answer, (m) => this.after(m));
      } else {
        const answer = await get("/v1/cube", { position, plies });
        this.shown = { board: b.board, dice: null, positionId: b.position_id, matchId, cube: b };
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

  async after(m) {
    try {
      const b = await get("/v1/game/board", { position: m.position_id });
      // Seen by the side that played (the Position ID after a play has the opponent on roll).
      this.shown = { ...this.shown, board: flip(b.board), positionId: m.position_id, matchId: "",
        caption: `after ${m.move || "no move"}` };
      this.ui.clearError();
      this.render();
    } catch (e) {
      this.ui.showError(e.message);
    }
  }

  render() {
    const ui = this.ui, el = ui.el;
    if (ui.mode !== "analyse") return;
    if (this.setup) {
      const b = this.setup, pips = [0, 0];
      for (let p = 1; p <= 25; p++) pips[0] += Math.max(b[p], 0) * p;
      for (let p = 0; p <= 24; p++) pips[1] += Math.max(-b[p], 0) * (25 - p);
      ui.board.draw(b, { cube: 1, caption: "set up: click to add" });
      ui.setIds(positionId(b), "");
      el.dice.textContent = "";
      el.turn.textContent = "Setting up: the side on roll at the bottom";
      el.score.textContent = "";
      el.pips.textContent = `Pips: bottom ${pips[0]}, top ${pips[1]}`;
      el.cubeInfo.textContent = "";
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
    });
    ui.setIds(s.positionId, s.matchId);
    el.dice.textContent = s.dice && !s.caption ? `${s.dice[0]}${s.dice[1]}` : "";
    el.turn.textContent = s.caption ? `Position ${s.caption}` : "Side on roll at the bottom";
    el.score.textContent = b.match_length ? `Score ${b.score[0]}-${b.score[1]} in a ${b.match_length}-point match` : "Money game";
    el.pips.textContent = `Pips: bottom ${b.pips[0]}, top ${b.pips[1]}`;
    el.cubeInfo.textContent = `Cube ${b.cube}${b.cube_owner ? (b.cube_owner === "on_roll" ? ", bottom's" : ", top's") : ", centred"}`;
  }
}
