// Match analysis: a .mat, GNU Backgammon .sgf or eXtreme Gammon .xg file (the server tells them apart by
// content) posted raw
// to /v1/analyze (0- or 1-ply), the players' statistics and the match drawn as a chart (the server's SVG:
// the left player's chances, errors and luck marked),
// and every analysed decision in a list, stepped through with the position drawn on the board
// (GET /v1/game/board for its PositionID:MatchID, in the view of the player who decided). The step
// buttons sit under the board. Each decision's candidates: a checker play's ranked plays from the Hint's
// GET /v1/moves at the depth analysed (the analysis names only the play made and the best), a cube
// decision's three equities from the analysis. A long nardy match (the answer's variant long_nardy) is asked
// with variant=long, its decisions' PositionID:MatchID read by long nardy's codec.

import { get, postRaw } from "./api.js";
import { showPlays, cubeTable, verdictWords } from "./results.js";

const MARK_CLASS = { doubtful: "mark-doubtful", bad: "mark-bad", "very bad": "mark-very-bad" };
const f1 = (x) => (x === null || x === undefined ? "" : Number(x).toFixed(1));
const f3 = (x) => (x === null || x === undefined ? "" : Number(x).toFixed(3));

function td(row, text, cls = "") {
  const c = row.insertCell();
  c.textContent = text;
  if (cls) c.className = cls;
  return c;
}

function describe(d) {
  if (d.kind === "move") return `${d.dice ? d.dice.join("") + ": " : ""}${d.played || "(no move)"}`;
  return `${d.kind === "take" ? "Cube response" : "Cube"}: ${d.played}`;
}

export class MatchAnalysis {
  constructor(ui) {
    this.ui = ui;
    this.names = [];
    this.decisions = []; // [{...decision, game}]
    this.index = -1;
    this.boards = new Map(); // index -> GET /v1/game/board answer
    this.candidates = new Map(); // index -> GET /v1/moves answer (checker plays)
    this.plies = 0; // the depth the match was analysed at
    this.variant = "backgammon"; // the game of the match: backgammon or long (long nardy)
    const el = ui.el;
    el.analyseMatch.addEventListener("click", () => this.upload());
    el.prevDecision.addEventListener("click", () => this.step(-1));
    el.nextDecision.addEventListener("click", () => this.step(1));
    el.nextError.addEventListener("click", () => this.nextError());
    el.matchChart.addEventListener("click", (e) => {
      const mark = e.target.closest ? e.target.closest("[data-decision]") : null;
      if (mark) this.select(Number(mark.getAttribute("data-decision")));
    });
    el.matInput.addEventListener("change", () => {
      el.analyseMatch.disabled = !el.matInput.files.length;
    });
    el.decisionList.addEventListener("keydown", (e) => {
      if (e.key === "ArrowDown" || e.key === "ArrowRight") { e.preventDefault(); this.step(1); }
      if (e.key === "ArrowUp" || e.key === "ArrowLeft") { e.preventDefault(); this.step(-1); }
    });
    this.updateNav();
  }

  async upload() {
    const ui = this.ui, el = ui.el;
    const file = el.matInput.files[0];
    if (!file) {
      ui.showError("choose a match file first: a .mat, a GNU Backgammon .sgf or an eXtreme Gammon .xg");
      return;
    }
    const plies = Number(el.matchDepth.value) || 0;
    el.analyseMatch.disabled = true;
    ui.notice(`Analysing ${file.name} at ${plies}-ply…`);
    try {
      const answer = await postRaw("/v1/analyze", { plies }, file);
      ui.clearError();
      this.plies = plies;
      this.show(answer, file.name);
      ui.notice(`${file.name}: ${this.decisions.length} decisions analysed at ${plies}-ply`);
      if (this.decisions.length) await this.select(0);
      else this.render();
    } catch (e) {
      ui.notice("");
      ui.showError(e.message);
    } finally {
      el.analyseMatch.disabled = false;
    }
  }

  show(answer) {
    const el = this.ui.el;
    this.variant = answer.variant === "long_nardy" ? "long" : "backgammon";
    this.names = answer.players.map((p) => p.name);
    this.decisions = [];
    for (const g of answer.games) for (const d of g.decisions) this.decisions.push({ ...d, game: g.number });
    this.index = -1;
    this.boards.clear();
    this.candidates.clear();

    const table = document.createElement("table");
    table.className = "stats";
    table.dataset.testid = "match-players";
    const head = table.createTHead().insertRow();
    for (const [h, title] of [["Player", ""], ["Checker", "checker-play error rate, mEMG per unforced move"],
      ["Marked", "doubtful / bad / very bad plays"], ["Cube", "cube error rate, mEMG per close decision"],
      ["Overall", "overall error rate, mEMG"], ["PR", "performance rating (lower is better)"],
      ["Luck", "luck rate, mEMG per move"]]) {
      const th = document.createElement("th");
      th.textContent = h;
      if (title) th.title = title;
      head.appendChild(th);
    }
    const body = table.createTBody();
    for (const p of answer.players) {
      const row = body.insertRow();
      row.dataset.testid = "player-row";
      td(row, p.name, "name");
      td(row, f1(p.checker.error_rate_memg));
      const m = p.checker.marked;
      td(row, `${m.doubtful}/${m.bad}/${m.very_bad}`);
      td(row, p.cube.close ? f1(p.cube.error_rate_memg) : "–");
      td(row, f1(p.overall.error_rate_memg));
      td(row, f1(p.pr), "pr");
      td(row, f1(p.luck_rate_memg));
    }
    el.matchStats.replaceChildren(table);
    // The server's SVG of the match (bot/doors/match_chart.py: no script, names escaped there).
    el.matchChart.innerHTML = answer.chart || "";
    const games = answer.games.map((g) => {
      const winner = g.winner === null || g.winner === undefined ? "unfinished" : `${this.names[g.winner]} wins ${g.points}`;
      return `Game ${g.number} (${g.score[0]}-${g.score[1]}): ${winner}${g.stopped ? ` — stopped: ${g.stopped}` : ""}`;
    });
    const title = `${this.variant === "long" ? "Long nardy" : "Backgammon"}, ` +
      `${answer.length ? `${answer.length}-point match` : "money session"}: `;
    el.matchGames.textContent = title + games.join(" · ");

    const list = el.decisionList;
    list.replaceChildren();
    this.decisions.forEach((d, i) => {
      const li = document.createElement("li");
      li.dataset.testid = "decision-row";
      li.dataset.index = String(i);
      if (d.mark) {
        li.classList.add("marked", MARK_CLASS[d.mark] || "mark-bad");
        li.dataset.mark = d.mark;
      }
      const who = document.createElement("span");
      who.className = "who";
      who.textContent = `G${d.game} ${this.names[d.player] || `player ${d.player}`}`;
      const what = document.createElement("span");
      what.className = "what";
      what.textContent = describe(d);
      const err = document.createElement("span");
      err.className = "err";
      err.textContent = d.error ? `${f3(-d.error)}${d.mark ? ` ${d.mark}` : ""}` : "";
      li.append(who, what, err);
      li.addEventListener("click", () => this.select(i));
      list.appendChild(li);
    });
    el.matchResults.hidden = false;
    el.matchSteps.hidden = !this.decisions.length;
    this.updateNav();
  }

  step(delta) {
    if (!this.decisions.length) return;
    const i = Math.min(Math.max(this.index + delta, 0), this.decisions.length - 1);
    if (i !== this.index) this.select(i);
  }

  nextError() {
    const n = this.decisions.length;
    for (let k = 1; k <= n; k++) {
      const i = (this.index + k) % n;
      if (this.decisions[i].mark) return this.select(i);
    }
    this.ui.notice("No marked errors in this match");
    return null;
  }

  async select(i) {
    const ui = this.ui, el = ui.el;
    this.index = i;
    for (const li of el.decisionList.children) {
      const on = Number(li.dataset.index) === i;
      li.classList.toggle("current", on);
      li.setAttribute("aria-current", on ? "true" : "false");
      if (on) li.scrollIntoView({ block: "nearest" });
    }
    this.updateNav();
    const d = this.decisions[i];
    if (!this.candidates.has(i)) el.candidates.replaceChildren();
    try {
      const position = d.match_id ? `${d.position_id}:${d.match_id}` : d.position_id;
      const variant = this.variant === "long" ? "long" : null;
      if (!this.boards.has(i)) this.boards.set(i, await get("/v1/game/board", { position, variant }));
      if (this.index !== i) return; // a later click won
      ui.clearError();
      this.render();
      if (d.kind === "move" && !d.forced && d.dice && !this.candidates.has(i)) {
        this.candidates.set(i, await get("/v1/moves", { position, dice: d.dice.join(""), plies: this.plies, variant }));
      }
      if (this.index === i) this.showCandidates(d, this.candidates.get(i));
    } catch (e) {
      ui.showError(e.message);
    }
  }

  updateNav() {
    const el = this.ui.el, n = this.decisions.length;
    el.prevDecision.disabled = this.index <= 0;
    el.nextDecision.disabled = !n || this.index >= n - 1;
    el.nextError.disabled = !this.decisions.some((d) => d.mark);
    el.decisionCount.textContent = n ? `${this.index + 1} / ${n}` : "";
    const d = n && this.index >= 0 ? this.decisions[this.index] : null;
    el.decisionDetail.replaceChildren();
    if (!d) return;
    const who = this.names[d.player] || `player ${d.player}`;
    const lines = [
      [`Game ${d.game}, ${who}${d.kind === "move" ? ` to play ${d.dice ? d.dice.join("") : ""}` : d.kind === "take" ? ", doubled" : ", cube"}`, "head"],
      [`Played: ${d.played || "(no move)"}`, ""],
      [`Best: ${d.best || "(no move)"}`, ""],
      [d.error ? `Error ${f3(-d.error)}${d.mark ? ` (${d.mark})` : ""}` : d.forced ? "Forced" : "No error", d.mark ? MARK_CLASS[d.mark] : ""],
    ];
    for (const [text, cls] of lines) {
      const p = document.createElement("p");
      p.textContent = text;
      if (cls) p.className = cls;
      el.decisionDetail.appendChild(p);
    }
  }

  // The ranked candidates of decision d (moves: GET /v1/moves's answer for a checker play), the one played marked.
  showCandidates(d, moves) {
    const box = this.ui.el.candidates;
    box.replaceChildren();
    const title = document.createElement("p");
    title.className = "verdict";
    box.appendChild(title);
    const table = document.createElement("div");
    box.appendChild(table);
    if (d.kind === "move") {
      title.textContent = moves ? `Candidates for ${d.dice.join("")} at ${this.plies}-ply` : "A forced play";
      if (moves) showPlays(table, moves, null, { testid: "candidate-row", played: d.played });
    } else if (d.equities) {
      const e = d.equities;
      const take = e.double_take <= e.double_pass; // the opponent's better answer
      const proper = e.no_double >= Math.min(e.double_take, e.double_pass)
        ? (take ? "NODOUBLE_TAKE" : "TOOGOOD_PASS") : take ? "DOUBLE_TAKE" : "DOUBLE_PASS";
      title.textContent = `${d.kind === "take" ? "Take or pass" : "Double or not"}. Proper cube action: ${verdictWords(proper)}`;
      table.appendChild(cubeTable(e, null, d.played));
    }
  }

  render() {
    const ui = this.ui, el = ui.el;
    if (ui.mode !== "match") return;
    const b = this.index >= 0 ? this.boards.get(this.index) : null;
    if (!b) {
      ui.drawStart("");
      return;
    }
    const d = this.decisions[this.index];
    const who = this.names[d.player] || `player ${d.player}`;
    const dice = d.kind === "move" ? d.dice || b.dice : null;
    ui.board.draw(b.board, {
      dice,
      cube: b.match_length && b.crawford ? 0 : b.cube,
      cubeOwner: b.cube_owner === "on_roll" ? "me" : b.cube_owner === "opponent" ? "them" : null,
      variant: this.variant,
    });
    ui.setIds(b.position_id, d.match_id || "");
    el.dice.textContent = dice ? `${dice[0]}${dice[1]}` : "";
    el.turn.textContent = `${who} at the bottom${d.kind === "move" ? " to play" : d.kind === "take" ? ", doubled" : ", cube decision"}`;
    el.score.textContent = b.match_length ? `Score ${b.score[0]}-${b.score[1]} in a ${b.match_length}-point match` : "Money game";
    el.pips.textContent = `Pips: bottom ${b.pips[0]}, top ${b.pips[1]}`;
    el.cubeInfo.textContent = `Cube ${b.cube}${b.cube_owner ? (b.cube_owner === "on_roll" ? ", bottom's" : ", top's") : ", centred"}`;
  }
}
