// Play mode: a game or match against the bot. The page holds the game token of the last
// answer and sends it back with each action; the server says what is legal and what happens.
// Moves are entered one checker step at a time (source, then destination) and checked against
// the legal plays the server listed for this roll.

import { post, get } from "./api.js";
import { showPlays, showCube } from "./results.js";

const key = (s) => `${s.from}/${s.to}`;

// The steps of `play` not yet entered, or null when `entered` is not part of it.
function remaining(play, entered) {
  const left = play.steps.slice();
  for (const s of entered) {
    const i = left.findIndex((t) => key(t) === key(s));
    if (i < 0) return null;
    left.splice(i, 1);
  }
  return left;
}

// The shortest chain of steps in `steps` taking one checker from `src` to `dst`, or null.
function chain(steps, src, dst) {
  let frontier = [{ at: src, used: [] }];
  for (let depth = 0; depth < steps.length && frontier.length; depth++) {
    const next = [];
    for (const node of frontier) {
      steps.forEach((s, i) => {
        if (node.used.includes(i) || s.from !== node.at) return;
        const used = node.used.concat([i]);
        if (s.to === dst) next.found = next.found || used;
        next.push({ at: s.to, used });
      });
    }
    if (next.found) return next.found.map((i) => steps[i]);
    frontier = next;
  }
  return null;
}

// The board (mover's view) after the steps; a checker landing on a lone opponent sends it to the bar.
function applySteps(board, steps) {
  const b = board.slice();
  for (const s of steps) {
    b[s.from] -= 1;
    if (s.to !== 0) {
      if (b[s.to] === -1) { b[s.to] = 0; b[0] -= 1; }
      b[s.to] += 1;
    }
  }
  return b;
}

export class Play {
  constructor(ui) {
    this.ui = ui;
    this.view = null;
    this.entered = [];
    this.groups = [];
    this.selected = null;
    this.busy = false;
    this.lastBot = null;
    const params = new URLSearchParams(location.search);
    this.seed = params.has("seed") ? Number(params.get("seed")) : null;
    this.delay = params.has("delay") ? Number(params.get("delay")) : 400;
    this.rolls = 0;
  }

  nextSeed() {
    return this.seed === null || Number.isNaN(this.seed) ? null : this.seed + this.rolls++;
  }

  // The Level menu holds search depths ("0".."2") and GNU Backgammon's named playing levels.
  // The bot plays at either; hints use the depth, 0-ply under a named level.
  plies() {
    return Number(this.ui.el.level.value) || 0;
  }

  strength() {
    const value = this.ui.el.level.value;
    return /^[0-9]$/.test(value) ? { plies: Number(value) } : { playing_level: value };
  }

  async act(path, extra = {}, token = null) {
    if (this.busy) return;
    this.busy = true;
    this.render();
    try {
      const body = path === "/v1/game/new" ? extra : { game: token || this.view.game, ...this.strength(), ...extra };
      const view = await post(path, body);
      this.ui.clearError();
      this.busy = false;
      this.apply(view);
    } catch (e) {
      this.busy = false;
      this.ui.showError(e.message);
      this.render();
    }
  }

  apply(view) {
    this.view = view;
    this.entered = [];
    this.groups = [];
    this.selected = null;
    if (view.bot_move) this.lastBot = view.bot_move;
    else if (view.turn === "human" && view.phase === "opening") this.lastBot = null;
    this.ui.clearResults();
    for (const line of view.events) this.ui.log(line);
    this.ui.setMode("play");
    this.render();
    if (view.turn === "bot" && (view.phase === "roll" || view.phase === "move")) {
      setTimeout(() => this.act("/v1/game/bot", { seed: this.nextSeed() }), this.delay);
    }
  }

  newGame() {
    this.ui.clearLog();
    this.lastBot = null;
    this.act("/v1/game/new", { length: Number(this.ui.el.length.value) || 0 });
  }

  nextGame() {
    if (!this.view || !this.view.result || !this.view.result.next_game) return;
    this.act("/v1/game/view", {}, this.view.result.next_game);
  }

  myMove() {
    const v = this.view;
    return v && !this.busy && v.turn === "human" && v.phase === "move";
  }

  candidates() {
    return this.view.plays.filter((p) => remaining(p, this.entered) !== null);
  }

  complete() {
    const v = this.view;
    if (!this.myMove() || !v.plays.length || this.entered.length !== v.plays[0].steps.length) return null;
    return this.candidates()[0] || null;
  }

  sources() {
    const out = new Set();
    for (const p of this.candidates()) for (const s of remaining(p, this.entered)) out.add(s.from);
    return out;
  }

  targets(src) {
    const out = new Set();
    for (const p of this.candidates()) {
      const left = remaining(p, this.entered);
      const walk = (at, used) => left.forEach((s, i) => {
        if (used.includes(i) || s.from !== at) return;
        out.add(s.to);
        walk(s.to, used.concat([i]));
      });
      walk(src, []);
    }
    return out;
  }

  click(point) {
    if (!this.myMove()) return;
    this.ui.notice("");
    if (this.selected === null) {
      if (this.sources().has(point)) this.selected = point;
      else if (point !== 0) this.ui.notice(this.complete() ? "Your play is complete: confirm it, or undo" : "No checker of yours can move from there");
    } else if (point === this.selected) {
      this.selected = null;
    } else {
      let best = null;
      for (const p of this.candidates()) {
        const found = chain(remaining(p, this.entered), this.selected, point);
        if (found && (!best || found.length < best.length)) best = found;
      }
      if (best) {
        this.entered.push(...best);
        this.groups.push(best.length);
        this.selected = null;
      } else if (this.sources().has(point)) {
        this.selected = point;
      } else {
        this.ui.notice("That checker cannot go there");
      }
    }
    this.render();
  }

  undo() {
    if (this.selected !== null) this.selected = null;
    else if (this.groups.length) this.entered.splice(this.entered.length - this.groups.pop());
    this.render();
  }

  confirm() {
    const chosen = this.complete();
    if (chosen) this.act("/v1/game/play", { move: chosen.move });
  }

  pickHint(m) {
    if (!this.myMove()) return;
    this.entered = m.play.map((s) => ({ from: s.from, to: s.to }));
    this.groups = [this.entered.length];
    this.selected = null;
    this.render();
  }

  async hint() {
    const v = this.view;
    if (!v || this.busy) return;
    try {
      const position = v.game;
      if (v.phase === "move") {
        const answer = await get("/v1/moves", { position, plies: this.plies() });
        showPlays(this.ui.el.results, answer, (m) => this.pickHint(m));
      } else {
        showCube(this.ui.el.results, await get("/v1/cube", { position, plies: this.plies() }));
      }
      this.ui.clearError();
    } catch (e) {
      this.ui.showError(e.message);
    }
  }

  render() {
    const ui = this.ui, el = ui.el, v = this.view;
    const idle = !v || this.busy;
    const mine = v && !this.busy && v.turn === "human";
    el.roll.disabled = !(mine && (v.phase === "roll" || v.phase === "opening"));
    el.double.disabled = !(mine && v.phase === "roll" && v.may_double);
    el.confirm.disabled = !this.complete();
    el.undo.disabled = !(this.myMove() && (this.entered.length || this.selected !== null));
    el.hint.disabled = !(mine && (v.phase === "roll" || v.phase === "move"));
    el.resign.disabled = !(mine && ["roll", "move", "doubled"].includes(v.phase));
    el.resignLevel.disabled = el.resign.disabled;
    const doubled = v && v.phase === "doubled" && v.turn === "human";
    el.take.hidden = el.pass.hidden = !doubled;
    el.take.disabled = el.pass.disabled = !doubled || this.busy;
    el.nextGame.hidden = !(v && v.result && v.result.next_game);
    el.gameOver.hidden = !(v && v.result);
    if (v && v.result) {
      const r = v.result;
      const how = { single: "", gammon: " (gammon)", backgammon: " (backgammon)", pass: " (double passed)", resign: " (resignation)" }[r.how];
      el.gameOver.textContent = `${r.winner === "human" ? "You win" : "nardy wins"} ${r.points} point${r.points === 1 ? "" : "s"}${how}` +
        (r.match_over ? ` and the match, ${r.score.human}-${r.score.bot}` : "") + ".";
    }
    if (ui.mode !== "play") return;
    if (!v) {
      ui.drawStart("Choose a length, then New game");
      return;
    }
    const board = v.phase === "move" && v.on_roll === "human" ? applySteps(v.board, this.entered) : v.board;
    const bot = this.lastBot && v.turn === "human" && v.phase !== "move" ? this.lastBot : null;
    ui.board.draw(board, {
      dice: v.dice || (bot ? bot.dice : null),
      diceMine: v.dice ? v.on_roll === "human" : false,
      cube: v.match_length && (v.crawford || v.post_crawford) ? 0 : v.cube,
      cubeOwner: v.cube_owner === "human" ? "me" : v.cube_owner === "bot" ? "them" : null,
      selected: this.selected,
      targets: this.selected !== null ? this.targets(this.selected) : new Set(),
    });
    ui.setIds(v.position_id, v.match_id);
    el.dice.textContent = v.dice ? `${v.dice[0]}${v.dice[1]}` : "";
    const score = r => `You ${r.human} – nardy ${r.bot}`;
    const s = v.result ? v.result.score : v.score;
    el.score.textContent = v.match_length
      ? `${score(s)} in a ${v.match_length}-point match${v.crawford ? " (Crawford game)" : v.post_crawford ? " (post-Crawford)" : ""}`
      : `Money: ${score(s)}`;
    el.pips.textContent = `Pips: you ${v.pips.human}, nardy ${v.pips.bot}`;
    el.cubeInfo.textContent = `Cube ${v.cube}${v.cube_owner ? (v.cube_owner === "human" ? ", yours" : ", nardy's") : ", centred"}`;
    let turn;
    if (this.busy) turn = "nardy is thinking…";
    else if (v.phase === "over") turn = "Game over";
    else if (v.phase === "opening") turn = "Roll to see who starts";
    else if (v.turn === "bot") turn = "nardy to play";
    else if (v.phase === "doubled") turn = `nardy doubles to ${2 * v.cube}: take or pass?`;
    else if (v.phase === "roll") turn = v.may_double ? "Your turn: roll or double" : "Your turn: roll";
    else if (v.plays.length === 1 && !v.plays[0].steps.length) turn = "You cannot move: confirm to pass";
    else turn = this.complete() ? "Confirm your play, or undo" : `Your turn: move ${v.dice[0]}${v.dice[1]}`;
    el.turn.textContent = turn;
  }
}
