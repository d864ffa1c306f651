// Play mode: a game or match against the bot. The page holds the game token of the last
// answer and sends it back with each action; the server says what is legal and what happens.
// Moves are entered by clicks (a checker, then where it goes) or by dragging a checker, one die
// at a time or a checker the whole way at once, in any order: entry.js accepts whatever reaches
// the position after one of the legal plays the server listed for this roll.

import { post, get, viewQuery } from "./api.js";
import { showPlays, showCube } from "./results.js";
import { Entry } from "./entry.js";
import { Tutor } from "./tutor.js";

export class Play {
  constructor(ui) {
    this.ui = ui;
    this.view = null;
    this.entry = null; // the play being entered (entry.js), while the human has dice to play
    this.selected = null;
    this.landed = null; // where a click has just moved a checker with a single place to go
    this.busy = false;
    this.lastBot = null;
    const params = new URLSearchParams(location.search);
    this.seed = params.has("seed") ? Number(params.get("seed")) : null;
    this.delay = params.has("delay") ? Number(params.get("delay")) : 400;
    this.startToken = params.get("game"); // ?game=PositionID:MatchID opens Play mode on that game
    this.rolls = 0;
    this.tutor = new Tutor(ui);
    this.warned = null; // the tutor's judgement of a decision held back by its warning, and how to go on
    this.resigning = false; // the "are you sure" of a resignation is open
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

  // Send an action; true when the server took it.
  async act(path, extra = {}, token = null) {
    if (this.busy) return false;
    this.busy = true;
    this.render();
    try {
      const body = path === "/v1/game/new" ? extra : { game: token || this.view.game, ...this.strength(), ...extra };
      const view = await post(path, body);
      this.ui.clearError();
      this.busy = false;
      this.apply(view);
      return true;
    } catch (e) {
      this.busy = false;
      this.ui.showError(e.message);
      this.render();
      return false;
    }
  }

  // A decision of the player (a play, or a cube action: "double", "roll", "take", "pass"): with the tutor on,
  // judged first; a marked one waits for "play it anyway" or "take it back". Then sent, and graded.
  async decide(path, extra, judge) {
    if (this.busy || this.warned) return;
    let judgement = null;
    if (this.tutor.on && judge) {
      this.busy = "tutor";
      this.render();
      try {
        judgement = await judge();
      } catch (e) {
        this.ui.showError(`tutor: ${e.message}`);
      }
      this.busy = false;
      if (judgement && judgement.mark) {
        this.warned = { judgement, go: () => this.send(path, extra, judgement) };
        this.render();
        return;
      }
    }
    await this.send(path, extra, judgement);
  }

  async send(path, extra, judgement) {
    if (await this.act(path, extra)) this.tutor.grade(judgement);
  }

  // The tutor's warning answered: the decision made anyway, or taken back (the play entered is undone).
  answerTutor(anyway) {
    const warned = this.warned;
    if (!warned) return;
    this.warned = null;
    if (anyway) {
      warned.go();
      return;
    }
    if (this.entry) this.entry = this.newEntry(this.view);
    this.render();
  }

  // The human's cube action or roll, judged by the tutor where the cube could be turned.
  cube(action) {
    const v = this.view;
    const path = { double: "/v1/game/double", roll: "/v1/game/roll", take: "/v1/game/take", pass: "/v1/game/pass" }[action];
    const extra = action === "roll" ? { seed: this.nextSeed() } : {};
    const judged = action === "take" || action === "pass" || (v.phase === "roll" && v.may_double);
    const tutored = judged && (v.variant !== "long" || (!v.cube_owner && action !== "take" && action !== "pass"));
    this.decide(path, extra, tutored ? () => this.tutor.judgeCube(v, action, this.plies()) : null);
  }

  // Resign: first the question (which resignation, and are you sure), then the resignation.
  askResign(open) {
    this.resigning = open && !this.busy;
    this.render();
  }

  // Long nardy's resignation has no choice: the board decides, a mars while you have borne off no checker, else oin.
  longResignation() {
    const v = this.view;
    const mars = v.board.reduce((n, x) => n + Math.max(x, 0), 0) === 15;
    const points = (mars ? 2 : 1) * Math.max(v.cube, 1);
    return `Resign this game? nardy wins ${mars ? "a mars" : "a single game (oin)"}, ${points} ` +
      `point${points === 1 ? "" : "s"}: you have borne off ${mars ? "no checker" : "checkers"}.`;
  }

  resign() {
    this.resigning = false;
    this.act("/v1/game/resign", { level: Number(this.ui.el.resignLevel.value) });
  }

  apply(view) {
    this.view = view;
    const entering = view.phase === "move" && view.turn === "human" && view.dice;
    this.entry = entering ? this.newEntry(view) : null;
    this.selected = null;
    this.landed = null;
    this.warned = null;
    this.resigning = false;
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

  // The play being entered for the view's dice (long nardy: one checker of the other side closes a point).
  newEntry(view) {
    return new Entry(view.board, view.dice, view.plays, view.variant === "long" ? 1 : 2);
  }

  newGame() {
    this.ui.clearLog();
    this.tutor.reset();
    this.lastBot = null;
    const el = this.ui.el;
    const long = el.variant.value === "long";
    const length = Number(el.length.value) || 0;
    this.act("/v1/game/new", long ? { variant: "long", cube: el.longCube.checked, length } : { length });
  }

  nextGame() {
    if (!this.view || !this.view.result || !this.view.result.next_game) return;
    this.tutor.reset();
    this.act("/v1/game/view", {}, this.view.result.next_game);
  }

  myMove() {
    const v = this.view;
    return v && !this.busy && !this.warned && v.turn === "human" && v.phase === "move";
  }

  // The legal play the entered moves have reached (confirm sends it), or null.
  complete() {
    return this.myMove() && this.entry ? this.entry.complete() : null;
  }

  // Select a checker to move; one with a single place to go goes there at once, as on GNU Backgammon's board.
  // A click on the point it landed on right after does nothing (from there that checker has no
  // move left, or it would have had a choice), so the habit of clicking checker then destination holds.
  pick(point) {
    const targets = this.entry.targets(point);
    if (targets.size !== 1) {
      this.selected = point;
      return;
    }
    const [to] = targets;
    this.moveChecker(point, to);
    this.landed = to;
  }

  moveChecker(from, to) {
    const why = this.entry.move(from, to);
    this.selected = null;
    if (why) this.ui.notice(why);
  }

  click(point) {
    if (!this.myMove() || !this.entry) return;
    const landed = this.landed;
    this.landed = null;
    if (point === landed && this.selected === null) return;
    this.ui.notice("");
    const entry = this.entry;
    if (this.selected === null) {
      if (entry.sources().has(point)) this.pick(point);
      else if (point !== 0) this.ui.notice(entry.explainSource(point));
    } else if (point === this.selected) {
      this.selected = null;
    } else if (!entry.targets(this.selected).has(point) && entry.sources().has(point)) {
      this.pick(point);
    } else {
      this.moveChecker(this.selected, point);
    }
    this.render();
  }

  // Drag and drop (board.js): the points a checker pressed on `point` may be dropped on, or null.
  dragFrom(point) {
    if (this.ui.mode !== "play" || !this.myMove() || !this.entry || !this.entry.sources().has(point)) return null;
    this.ui.notice("");
    this.selected = null;
    return this.entry.targets(point);
  }

  // A dragged checker let go over `to` (null: off the board, which cancels the drag).
  drop(from, to) {
    this.landed = null;
    if (to !== null && to !== from) this.moveChecker(from, to);
    this.render();
  }

  undo() {
    this.landed = null;
    if (this.selected !== null) this.selected = null;
    else if (this.entry) this.entry.undo();
    this.ui.notice("");
    this.render();
  }

  confirm() {
    const chosen = this.complete(), v = this.view;
    if (!chosen) return;
    const choice = v.plays.length > 1 ? () => this.tutor.judgePlay(v, chosen, this.plies()) : null;
    this.decide("/v1/game/play", { move: chosen.move }, choice);
  }

  pickHint(m) {
    if (!this.myMove()) return;
    const v = this.view;
    this.entry = this.newEntry(v);
    this.entry.setPlay(m.play.map((s) => ({ from: s.from, to: s.to, hit: s.hit })));
    this.selected = null;
    this.render();
  }

  async hint() {
    const v = this.view;
    if (!v || this.busy) return;
    try {
      const query = { ...viewQuery(v), plies: this.plies() };
      if (v.phase === "move") {
        const answer = await get("/v1/moves", { ...query, dice: v.dice.join("") });
        showPlays(this.ui.el.results, answer, (m) => this.pickHint(m));
      } else {
        showCube(this.ui.el.results, await get("/v1/cube", query));
      }
      this.ui.clearError();
    } catch (e) {
      this.ui.showError(e.message);
    }
  }

  render() {
    const ui = this.ui, el = ui.el, v = this.view;
    const mine = v && !this.busy && !this.warned && v.turn === "human";
    el.playControls.hidden = !v || v.phase === "over"; // no game yet, or over: New game or Next game to do
    el.rulesLink.hidden = !(v ? v.variant === "long" : el.variant.value === "long");
    el.roll.disabled = !(mine && (v.phase === "roll" || v.phase === "opening"));
    el.double.disabled = !(mine && v.phase === "roll" && v.may_double);
    el.confirm.disabled = !this.complete();
    el.undo.disabled = !(this.myMove() && this.entry && (this.entry.history.length || this.selected !== null));
    el.hint.disabled = !(mine && (v.phase === "move" || (v.phase === "roll" && v.variant !== "long")));
    el.resign.disabled = !(mine && ["roll", "move", "doubled"].includes(v.phase));
    this.resigning = this.resigning && !el.resign.disabled;
    el.confirmResign.hidden = !this.resigning;
    el.resignLevel.hidden = !!(v && v.variant === "long"); // long nardy: oin or mars by the board
    el.resignQuestion.textContent = v && v.variant === "long" ? this.longResignation() : "Resign this game? nardy would win";
    el.tutorWarning.hidden = !this.warned;
    if (this.warned) el.tutorText.textContent = this.tutor.warning(this.warned.judgement);
    const doubled = v && v.phase === "doubled" && v.turn === "human";
    el.take.hidden = el.pass.hidden = !doubled;
    el.double.hidden = el.roll.hidden = doubled;
    el.take.disabled = el.pass.disabled = !mine || !doubled;
    ui.showResignation(v && !this.busy && v.phase === "resigned" ? v.resignation : null);
    el.nextGame.hidden = !(v && v.result && v.result.next_game);
    el.gameOver.hidden = !(v && v.result);
    if (v && v.result) {
      const r = v.result;
      const how = { single: "", gammon: " (gammon)", backgammon: " (backgammon)", oin: " (oin)", mars: " (mars)",
        pass: " (double passed)", resign: " (resignation)" }[r.how];
      el.gameOver.textContent = `${r.winner === "human" ? "You win" : "nardy wins"} ${r.points} point${r.points === 1 ? "" : "s"}${how}` +
        (r.match_over ? ` and the match, ${r.score.human}-${r.score.bot}` : "") + ".";
    }
    if (ui.mode !== "play") return;
    if (!v) {
      ui.drawStart("Choose a game, then New game");
      return;
    }
    // The tutor's warning of a play shows the better play and the one entered as arrows on the board before it.
    const shown = this.warned && this.warned.judgement.betterSteps ? this.warned.judgement : null;
    const board = this.entry && !shown ? this.entry.board : v.board;
    const bot = this.lastBot && v.turn === "human" && v.phase !== "move" ? this.lastBot : null;
    ui.board.draw(board, {
      dice: v.dice || (bot ? bot.dice : null),
      diceMine: v.dice ? v.on_roll === "human" : false,
      cube: v.match_length && (v.crawford || v.post_crawford) ? 0 : v.cube,
      cubeOwner: v.cube_owner === "human" ? "me" : v.cube_owner === "bot" ? "them" : null,
      selected: this.selected,
      targets: this.selected !== null && this.entry ? this.entry.targets(this.selected) : new Set(),
      movable: Boolean(this.myMove() && this.entry),
      arrows: shown ? [{ steps: shown.mySteps, kind: "mine" }, { steps: shown.betterSteps, kind: "better" }] : null,
      variant: v.variant,
    });
    ui.setIds(v.position_id, v.match_id);
    el.dice.textContent = v.dice ? `${v.dice[0]}${v.dice[1]}` : "";
    const score = r => `You ${r.human} – nardy ${r.bot}`;
    const s = v.result ? v.result.score : v.score;
    el.score.textContent = v.match_length
      ? `${score(s)} in a ${v.match_length}-point match${v.crawford ? " (Crawford game)" : v.post_crawford ? " (post-Crawford)" : ""}`
      : `${v.variant === "long" ? "Long nardy for money" : "Money"}: ${score(s)}`;
    el.pips.textContent = `Pips: you ${v.pips.human}, nardy ${v.pips.bot}`;
    el.cubeInfo.textContent = v.cube ? `Cube ${v.cube}${v.cube_owner ? (v.cube_owner === "human" ? ", yours" : ", nardy's") : ", centred"}` : "No cube";
    let turn;
    if (this.busy === "tutor") turn = "The tutor is looking…";
    else if (this.busy) turn = "nardy is thinking…";
    else if (this.warned) turn = "The tutor warns you: take it back, or play it anyway";
    else if (v.phase === "over") turn = "Game over";
    else if (v.phase === "opening") turn = "Roll to see who starts";
    else if (v.turn === "bot") turn = "nardy to play";
    else if (v.phase === "resigned") turn = "nardy offers to resign: accept or reject?";
    else if (v.phase === "doubled") turn = `nardy doubles to ${2 * v.cube}: take or pass?`;
    else if (v.phase === "roll") turn = v.may_double ? "Your turn: roll or double" : "Your turn: roll";
    else if (v.plays.length === 1 && !v.plays[0].steps.length) turn = "You cannot move: confirm to pass";
    else turn = this.complete() ? "Confirm your play, or undo" : `Your turn: move ${v.dice[0]}${v.dice[1]}`;
    el.turn.textContent = turn;
  }
}
