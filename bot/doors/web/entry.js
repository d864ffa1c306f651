// A play being entered on the board, judged by the position it reaches, not by the path.
//
// The server lists the legal plays of the roll (one path each); their afterstates are the goals.
// A checker step by one die is accepted when some goal can still be reached from the board it
// leaves with the dice left, so a legal play can be entered in any order of its dice, through
// any intermediate point, checker by checker or a checker the whole way at once. The steps
// themselves only know how checkers move (a die's distance, not onto two or more of the other
// side's, a lone one hit); every rule of the game (the bar first, bearing off, playing both dice,
// the larger die) comes from the goals. Boards are the mover's view: 25 = its bar, 0 = off.
// Long nardy is the same with `closedBy` 1: a single checker of the other side closes a point, so
// nothing is ever hit (its head rule and six-blocks come from the goals too).

export const BAR = 25, OFF = 0;

export const pointName = (p) => (p === BAR ? "the bar" : p === OFF ? "off" : String(p));

// The board after one checker moves from `from` to `to` (OFF: borne off), and whether it hit.
export function applyStep(board, from, to) {
  const b = board.slice();
  b[from] -= 1;
  let hit = false;
  if (to !== OFF) {
    hit = b[to] === -1;
    if (hit) { b[to] = 0; b[0] -= 1; }
    b[to] += 1;
  }
  return { board: b, hit };
}

// Where a checker on `from` lands with `die`, or null when the other side holds that point
// (`closedBy` of its checkers or more).
function landing(board, from, die, closedBy) {
  const to = Math.max(from - die, OFF);
  return to !== OFF && board[to] <= -closedBy ? null : to;
}

// Whether the rules allow that step on its own (the bar first; bearing off with all checkers home,
// by a larger die only from the highest point). Only the messages use it: what a play may pass
// through is decided by the positions it can still reach.
function allowed(board, from, to, die) {
  if (board[BAR] > 0 && from !== BAR) return false;
  if (to !== OFF) return true;
  if (board.slice(7, 26).some((n) => n > 0)) return false;
  return from - die === OFF || !board.slice(from + 1, 7).some((n) => n > 0);
}

const without = (dice, die) => {
  const rest = dice.slice();
  rest.splice(rest.indexOf(die), 1);
  return rest;
};

const distinct = (dice) => [...new Set(dice)].sort((a, b) => a - b);

const diceKey = (left) => left.slice().sort().join();

export class Entry {
  // board: 26 numbers, mover's view; dice: the roll [d1, d2]; plays: [{move, steps: [{from, to, hit}]}];
  // closedBy: how many of the other side's checkers close a point (backgammon 2, long nardy 1).
  constructor(board, dice, plays, closedBy = 2) {
    this.closedBy = closedBy;
    this.start = board.slice();
    this.dice = dice.slice();
    this.goals = new Map();
    for (const play of plays) {
      let b = board;
      for (const s of play.steps) b = applyStep(b, s.from, s.to).board;
      this.goals.set(b.join(), play);
    }
    this.most = plays.length ? plays[0].steps.length : 0;
    this.memo = new Map();
    this.depth = new Map();
    this.history = [];
    this.board = board.slice();
    // The dice still to play. Which die a move used is left open while the board cannot tell
    // (a checker borne off by a 1 or by a 5): every set of dice left that the moves so far could
    // leave is kept, and later moves may use any of them.
    this.lefts = [dice[0] === dice[1] ? [dice[0], dice[0], dice[0], dice[0]] : dice.slice()];
  }

  // Whether a goal can be reached from (board, left) by checker steps.
  reachable(board, left) {
    const key = `${board.join()}|${diceKey(left)}`;
    let found = this.memo.get(key);
    if (found === undefined) {
      found = this.goals.has(board.join()) ||
        this.singles(board, left).some((s) => this.reachable(s.board, s.left));
      this.memo.set(key, found);
    }
    return found;
  }

  // The most dice the rules let the mover play from (board, left).
  playable(board, left) {
    const key = `${board.join()}|${diceKey(left)}`;
    let most = this.depth.get(key);
    if (most === undefined) {
      most = 0;
      for (const s of this.singles(board, left)) {
        if (allowed(board, s.from, s.to, s.die)) most = Math.max(most, 1 + this.playable(s.board, s.left));
      }
      this.depth.set(key, most);
    }
    return most;
  }

  // Every one-die checker step from (board, left): {from, to, die, hit, board, left}.
  singles(board, left, from = null) {
    const out = [];
    for (const die of distinct(left)) {
      for (let p = BAR; p >= 1; p--) {
        if ((from !== null && p !== from) || board[p] <= 0) continue;
        const to = landing(board, p, die, this.closedBy);
        if (to === null) continue;
        const after = applyStep(board, p, to);
        out.push({ from: p, to, die, hit: after.hit, board: after.board, left: without(left, die) });
      }
    }
    return out;
  }

  // The one-die steps from here that keep a legal play within reach.
  steps(from = null) {
    return this.lefts.flatMap((left) => this.singles(this.board, left, from))
      .filter((s) => this.reachable(s.board, s.left));
  }

  // The legal play the board has reached, or null.
  complete() {
    return this.goals.get(this.board.join()) || null;
  }

  sources() {
    return new Set(this.steps().map((s) => s.from));
  }

  // Every way to take one checker from `from` to `to` with the dice left, each step kept only
  // if `keep` says so: lists of steps, fewest dice first.
  chains(from, to, keep) {
    const found = [];
    const walk = (board, left, at, path) => {
      for (const s of this.singles(board, left, at)) {
        if (!keep(s)) continue;
        const next = path.concat([s]);
        if (s.to === to) found.push(next);
        else if (s.to !== OFF) walk(s.board, s.left, s.to, next);
      }
    };
    for (const left of this.lefts) walk(this.board, left, from, []);
    return found.sort((a, b) => a.length - b.length);
  }

  // Where a checker taken from `from` to `to` leaves the game: {board, lefts, steps} or {error}.
  // A path that hits only where it lands, as GNU Backgammon reads "13/2"; else the hitting path
  // that keeps a legal play in reach (several that hit different blots: the player must say which).
  route(from, to) {
    const valid = this.chains(from, to, (s) => this.reachable(s.board, s.left));
    if (!valid.length) return { error: this.explain(from, to) };
    const end = (c) => c[c.length - 1];
    const quiet = valid.find((c) => !c.slice(0, -1).some((s) => s.hit));
    const boards = new Set(valid.map((c) => end(c).board.join()));
    if (!quiet && boards.size > 1) {
      const hits = valid.map((c) => c.slice(0, -1).filter((s) => s.hit).map((s) => s.to).join(" and "));
      return { error: `From ${pointName(from)} to ${pointName(to)} you could hit on ${[...new Set(hits)].join(" or on ")}: ` +
        "move one die at a time to say which" };
    }
    const chosen = quiet || valid[0];
    const board = end(chosen).board;
    const same = valid.filter((c) => end(c).board.join() === board.join());
    const lefts = [...new Map(same.map((c) => [diceKey(end(c).left), end(c).left])).values()];
    return { board, lefts, steps: chosen.map((s) => ({ from: s.from, to: s.to, hit: s.hit })) };
  }

  // The points a checker on `from` can reach now (one die or several).
  targets(from) {
    const out = new Set();
    const walk = (board, left, at) => {
      for (const s of this.singles(board, left, at)) {
        if (!this.reachable(s.board, s.left)) continue;
        out.add(s.to);
        if (s.to !== OFF) walk(s.board, s.left, s.to);
      }
    };
    for (const left of this.lefts) walk(this.board, left, from);
    return out;
  }

  // Move a checker from `from` to `to`: null when done, else why not.
  move(from, to) {
    const found = this.route(from, to);
    if (found.error) return found.error;
    this.history.push({ board: this.board, lefts: this.lefts, steps: found.steps });
    this.board = found.board;
    this.lefts = found.lefts;
    return null;
  }

  // A whole legal play at once (a hint picked): Undo takes it back.
  setPlay(steps) {
    this.history.push({ board: this.board, lefts: this.lefts, steps });
    for (const s of steps) this.board = applyStep(this.board, s.from, s.to).board;
    this.lefts = [[]];
  }

  undo() {
    const last = this.history.pop();
    if (last) {
      this.board = last.board;
      this.lefts = last.lefts;
    }
    return Boolean(last);
  }

  // Why no checker may go from `from` to `to` now: the first rule the move breaks.
  explain(from, to) {
    const b = this.board;
    if (!this.most) return "This roll cannot be played: confirm to pass";
    if (this.complete() && !this.steps().length) return "Your play is complete: confirm it, or undo";
    if (b[from] <= 0) return from === BAR ? "You have no checker on the bar" : `No checker of yours on ${pointName(from)}`;
    if (to !== OFF && b[to] <= -this.closedBy) return `Point ${to} is blocked`;
    const moves = this.chains(from, to, () => true);
    if (!moves.length) return `No legal play moves a checker from ${pointName(from)} to ${pointName(to)}`;
    if (b[BAR] > 0 && from !== BAR) return "You must enter from the bar first";
    if (to === OFF) {
      const outside = b.slice(7, 26).some((n) => n > 0);
      if (outside) return "You cannot bear off while checkers are outside your home board";
    }
    const path = moves[0], end = path[path.length - 1];
    const used = (this.dice[0] === this.dice[1] ? 4 : 2) - end.left.length;
    if (used + this.playable(end.board, end.left) < this.most) {
      if (this.dice[0] !== this.dice[1]) return `That leaves the ${end.left[0]} unplayed: you must play both dice`;
      return `That leaves a ${this.dice[0]} unplayed that could be played: you must play ${this.most} of them`;
    }
    if (this.most === 1 && this.dice[0] !== this.dice[1] && path[0].die < Math.max(...this.dice)) {
      return `Only one die can be played, so it must be the larger, the ${Math.max(...this.dice)}`;
    }
    if (to === OFF && end.from - end.die < OFF && b.slice(end.from + 1, 7).some((n) => n > 0)) {
      return `Bear off from a higher point first: a ${end.die} takes a checker off ${end.from} only when none is above it`;
    }
    return `No legal play moves a checker from ${pointName(from)} to ${pointName(to)}`;
  }

  // Why a checker on `from` cannot move at all now (a click on it).
  explainSource(from) {
    if (!this.most || (this.complete() && !this.steps().length)) return this.explain(from, OFF);
    if (this.board[from] <= 0) return this.explain(from, OFF);
    const tries = this.lefts.flatMap((left) => this.singles(this.board, left, from));
    if (!tries.length) return `No checker of yours can move from ${pointName(from)}`;
    return this.explain(from, tries[0].to);
  }
}
