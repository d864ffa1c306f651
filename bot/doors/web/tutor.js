// The tutor, as GNU Backgammon's tutor mode: before a play or cube decision of the player is sent, the
// server's ranking of the choices (the Hint's GET /v1/moves and /v1/cube) says how much equity it loses;
// a doubtful, bad or very bad one (the marks of `nardy analyze`) is met by a warning first. Each of the
// player's decisions is graded in the game log in its mark's colour, and the errors of the game are counted.
// On or off by the `tutor` box, remembered by the browser.

import { get, viewQuery } from "./api.js";
import { verdictWords } from "./results.js";

// GNU Backgammon's skill thresholds in EMG, as bot/play/analysis.py's MARKS: worst first.
export const MARKS = [["very bad", 0.12], ["bad", 0.06], ["doubtful", 0.03]];
const EPSILON = 1e-7;
const STORE = "nardy.tutor";
export const MARK_CLASS = { doubtful: "mark-doubtful", bad: "mark-bad", "very bad": "mark-very-bad" };

// The mark of an error in EMG, or null.
export function markOf(loss) {
  const found = MARKS.find(([, threshold]) => loss >= threshold - EPSILON);
  return found ? found[0] : null;
}

const signed = (x) => (x >= 0 ? "+" : "") + x.toFixed(3);

export class Tutor {
  constructor(ui) {
    this.ui = ui;
    const box = ui.el.tutor;
    try {
      box.checked = localStorage.getItem(STORE) === "on";
    } catch (e) {
      box.checked = false; // storage refused (private mode): off, as by default
    }
    box.addEventListener("change", () => {
      try {
        localStorage.setItem(STORE, box.checked ? "on" : "off");
      } catch (e) {
        // not remembered, but on for this page
      }
      this.showTally();
    });
    this.reset();
  }

  get on() {
    return this.ui.el.tutor.checked;
  }

  // A new game: no errors yet.
  reset() {
    this.tally = { doubtful: 0, bad: 0, "very bad": 0, lost: 0 };
    this.showTally();
  }

  showTally() {
    const el = this.ui.el.tutorTally, t = this.tally;
    el.hidden = !this.on;
    const errors = t.doubtful + t.bad + t["very bad"];
    el.textContent = `Tutor: ${errors} error${errors === 1 ? "" : "s"} this game (${t.doubtful} doubtful, ` +
      `${t.bad} bad, ${t["very bad"]} very bad), ${t.lost.toFixed(3)} equity lost in all`;
  }

  // EMG per unit of match-winning chance at this score and cube: the line through the cube decision's
  // no double and double, pass, which the server gives both as EMG (a pass is +1) and as MWC.
  async emgPerMwc(view, plies) {
    const c = await get("/v1/cube", { ...viewQuery(view), plies });
    const pairs = ["double_take", "double_pass"].map((k) => [c.equities[k] - c.equities.no_double, c.mwc[k] - c.mwc.no_double]);
    const [de, dm] = pairs.reduce((a, b) => (Math.abs(b[1]) > Math.abs(a[1]) ? b : a));
    if (!(Math.abs(dm) > EPSILON)) throw new Error("the tutor cannot weigh this match score");
    return de / dm;
  }

  // How the play `chosen` ({move}) of the view's dice compares with the best:
  // {loss, mark, what, better, betterValue, match, betterSteps, mySteps}, the loss in EMG (money and long nardy:
  // equity); the steps ({from, to}) of the better play and of the chosen one, for the board's arrows.
  async judgePlay(view, chosen, plies) {
    const answer = await get("/v1/moves", { ...viewQuery(view), dice: view.dice.join(""), plies });
    const moves = answer.moves;
    const match = moves[0].mwc !== null;
    const scale = match ? await this.emgPerMwc(view, plies) : 1;
    const value = (m) => (match ? m.mwc * scale : m.equity);
    const best = moves[0];
    const mine = moves.find((m) => m.move === chosen.move);
    if (!mine) throw new Error(`the tutor does not know the play ${chosen.move}`);
    const loss = Math.max(0, value(best) - value(mine));
    const steps = (play) => play.map((s) => ({ from: s.from, to: s.to }));
    return { loss, mark: markOf(loss), what: chosen.move || "no move", better: best.move || "no move",
      betterValue: value(best), match, betterSteps: steps(best.play), mySteps: steps(chosen.steps) };
  }

  // How a cube action compares with the best: "double" or "roll" (the side on roll), "take" or "pass"
  // (answering the bot's double: the server's cube decision is then the bot's).
  async judgeCube(view, action, plies) {
    const c = await get("/v1/cube", { ...viewQuery(view), plies });
    const e = c.equities;
    const doubled = Math.min(e.double_take, e.double_pass);
    const losses = {
      double: [e.no_double - doubled, "no double"],
      roll: [doubled - e.no_double, "double"],
      take: [e.double_take - e.double_pass, "pass"],
      pass: [e.double_pass - e.double_take, "take"],
    };
    const [raw, better] = losses[action];
    const loss = Math.max(0, raw);
    const what = { double: "Doubling", roll: "Rolling without doubling", take: "Taking", pass: "Passing" }[action];
    return { loss, mark: markOf(loss), what, better, verdict: verdictWords(c.decision), cube: true,
      match: c.mwc !== null };
  }

  // The warning's words for a marked judgement.
  warning(j) {
    const unit = j.match ? "EMG" : "equity";
    const lost = `${j.loss.toFixed(3)} ${unit} (${j.mark})`;
    if (j.cube) return `${j.what} loses ${lost}: the better action is ${j.better} (${j.verdict}).`;
    return `${j.what} loses ${lost}: the better play is ${j.better} (${signed(j.betterValue)}). ` +
      "On the board: the better play in yellow, yours dashed.";
  }

  // The grade of a decision made, in the game log in its mark's colour, and counted.
  grade(j) {
    if (!j) return;
    if (j.mark) {
      this.tally[j.mark] += 1;
      this.tally.lost += j.loss;
    }
    const li = document.createElement("li");
    li.className = `grade ${j.mark ? MARK_CLASS[j.mark] : "mark-good"}`;
    li.dataset.testid = "tutor-grade";
    const what = j.cube ? j.what.toLowerCase() : j.what;
    li.textContent = j.mark
      ? `Tutor: ${what} ${j.mark}, −${j.loss.toFixed(3)} (better: ${j.better})`
      : j.loss > EPSILON ? `Tutor: ${what} good, −${j.loss.toFixed(3)}` : `Tutor: ${what} best`;
    this.ui.el.log.appendChild(li);
    this.ui.el.log.scrollTop = this.ui.el.log.scrollHeight;
    this.showTally();
  }
}
