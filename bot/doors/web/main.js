// The page: one board, the Play and Analyse panels, the shared status, IDs, errors and log.

import { Board } from "./board.js";
import { Play } from "./play.js";
import { Analyse, START_ID } from "./analyse.js";
import { MatchAnalysis } from "./match.js";

const START = [0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0];
const $ = (id) => document.getElementById(id);
const MODES = ["play", "analyse", "match"];

// The mode the address asks for: /#analyse, /#match, ?mode=analyse; Play otherwise.
function modeOfAddress() {
  const asked = location.hash.slice(1) || new URLSearchParams(location.search).get("mode") || "play";
  return MODES.includes(asked) ? asked : "play";
}

const el = {};
for (const id of ["turn", "score", "pips", "cubeInfo", "positionId", "matchId", "dice", "error", "notice", "log",
  "variant", "longCube", "length", "level", "newGame", "roll", "double", "confirm", "undo", "hint", "resign", "resignLevel", "take", "pass",
  "gameOver", "nextGame", "positionInput", "diceInput", "depth", "analyse", "results", "modePlay", "modeAnalyse",
  "modeMatch", "matchSteps", "candidates", "confirmResign", "resignYes", "resignNo", "tutor", "tutorTally",
  "tutorWarning", "tutorText", "tutorBack", "tutorAnyway", "resignQuestion", "playControls", "rulesLink",
  "copyPosition", "copyMatch", "matInput", "matchDepth", "analyseMatch", "matchResults", "matchStats",
  "matchGames", "matchChart", "prevDecision", "nextDecision", "nextError", "decisionCount", "decisionDetail", "decisionList",
  "setup", "setupTools", "setupSide", "setupClear", "botResignation", "resignationText", "acceptResignation",
  "rejectResignation", "playFromHere", "setupStart", "setupFields", "setupOnRoll", "setupCube", "setupOwner",
  "setupLength", "setupScoreBottom", "setupScoreTop", "setupCrawford"]) {
  el[id] = $(id.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase()));
}

const ui = {
  el,
  mode: "play",
  board: null,
  showError(message) {
    el.error.textContent = message;
    el.error.hidden = false;
  },
  clearError() {
    el.error.hidden = true;
    el.error.textContent = "";
  },
  notice(text) {
    el.notice.textContent = text;
  },
  log(line) {
    const li = document.createElement("li");
    li.textContent = line;
    el.log.appendChild(li);
    el.log.scrollTop = el.log.scrollHeight;
  },
  clearLog() {
    el.log.replaceChildren();
  },
  clearResults() {
    el.results.replaceChildren();
  },
  setIds(positionId, matchId) {
    el.positionId.textContent = positionId;
    el.matchId.textContent = matchId || "none";
    el.copyMatch.hidden = !matchId;
  },
  // The starting position, with a line above the board saying what to do.
  drawStart(caption) {
    ui.board.draw(START, { cube: 1 });
    ui.setIds(START_ID, "");
    el.dice.textContent = "";
    el.turn.textContent = caption || "Starting position";
    el.score.textContent = "";
    el.pips.textContent = "Pips: 167 – 167";
    el.cubeInfo.textContent = "";
  },
  // The bot's offer to resign (the view's "resignation"), or null to hide it.
  showResignation(offer) {
    const appearing = !!offer && el.botResignation.hidden;
    el.botResignation.hidden = !offer;
    if (appearing) el.botResignation.scrollIntoView({ block: "nearest" });
    if (offer) {
      el.resignationText.textContent = `nardy offers to resign a ${offer.how} game: accept and win ` +
        `${offer.points} point${offer.points === 1 ? "" : "s"}, or reject and play on.`;
    }
  },
  // Show one mode's controls only, and keep it in the address (/#analyse, /#match) so that it can be shared.
  setMode(mode) {
    ui.mode = mode;
    for (const name of MODES) {
      const tab = $(`tab-${name}`);
      tab.classList.toggle("active", name === mode);
      tab.setAttribute("aria-selected", String(name === mode));
      $(`mode-${name}`).hidden = name !== mode;
    }
    document.body.dataset.mode = mode;
    const url = new URL(location.href);
    url.searchParams.delete("mode");
    url.hash = mode === "play" ? "" : mode;
    if (url.href !== location.href) history.replaceState(null, "", url.href.replace(/#$/, ""));
  },
};

const play = new Play(ui);
const analyse = new Analyse(ui);
const match = new MatchAnalysis(ui);
ui.board = new Board($("board"), (point, event, context) => {
  if (analyse.setup && ui.mode === "analyse") return analyse.setupClick(point, event, context);
  if (context) return false;
  play.click(point);
  return true;
});
ui.board.drag = play; // checkers are dragged in Play mode only (play.dragFrom says where)

// A game against the bot from a game token (the Analyse mode's "Play from here").
ui.playFrom = (token) => {
  ui.clearLog();
  play.tutor.reset();
  play.lastBot = null;
  play.act("/v1/game/view", {}, token);
};

function show(mode) {
  if (mode !== ui.mode) ui.clearResults();
  ui.setMode(mode);
  ui.notice("");
  if (mode === "play") play.render();
  else if (mode === "match") match.render();
  else analyse.render();
}

for (const name of MODES) $(`tab-${name}`).addEventListener("click", () => show(name));
window.addEventListener("hashchange", () => { if (modeOfAddress() !== ui.mode) show(modeOfAddress()); });
el.newGame.addEventListener("click", () => play.newGame());
// Both games take a match length; long nardy's money games have an optional cube, backgammon's always have it.
const gameOptions = () => {
  const long = el.variant.value === "long";
  el.longCube.disabled = !long;
  play.render(); // the rules link follows the game chosen
};
el.variant.addEventListener("change", gameOptions);
gameOptions();
el.nextGame.addEventListener("click", () => play.nextGame());
for (const action of ["roll", "double", "take", "pass"]) el[action].addEventListener("click", () => play.cube(action));
el.tutorBack.addEventListener("click", () => play.answerTutor(false));
el.tutorAnyway.addEventListener("click", () => play.answerTutor(true));
el.resign.addEventListener("click", () => play.askResign(true));
el.resignNo.addEventListener("click", () => play.askResign(false));
el.resignYes.addEventListener("click", () => play.resign());
el.acceptResignation.addEventListener("click", () => play.act("/v1/game/accept"));
el.rejectResignation.addEventListener("click", () => play.act("/v1/game/reject", { seed: play.nextSeed() }));
el.confirm.addEventListener("click", () => play.confirm());
el.undo.addEventListener("click", () => play.undo());
el.hint.addEventListener("click", () => play.hint());
el.analyse.addEventListener("click", () => analyse.analyse());
el.setup.addEventListener("click", () => { if (ui.mode !== "analyse") show("analyse"); analyse.toggleSetup(); });
el.setupClear.addEventListener("click", () => analyse.clearSetup());
el.setupStart.addEventListener("click", () => analyse.clearSetup(START));
el.playFromHere.addEventListener("click", () => analyse.playFromHere());
for (const input of [el.positionInput, el.diceInput]) {
  input.addEventListener("keydown", (e) => { if (e.key === "Enter") analyse.analyse(); });
}

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    ui.notice(`Copied ${text}`);
  } catch (e) {
    ui.notice(`Copy by hand: ${text}`);
  }
}
el.copyPosition.addEventListener("click", () => copy(el.positionId.textContent));
el.copyMatch.addEventListener("click", () => copy(el.matchId.textContent));

ui.setMode(modeOfAddress());
ui.drawStart("");
if (ui.mode === "analyse") analyse.render();
play.render();
window.nardyPlay = play; // for tests and the curious: the game the page holds
if (play.startToken) ui.playFrom(play.startToken);
document.body.dataset.ready = "true";
