// Analyse mode: a typed Position ID, PositionID:MatchID or XGID, dice or none; the ranked plays
// (click one to see the position after it) or the cube decision, from the server's /v1 endpoints.

import { get } from "./api.js";
import { flip } from "./board.js";
import { showPlays, showCube } from "./results.js";

export const START_ID = "4HPwATDgc/ABMA";

export class Analyse {
  constructor(ui) {
    this.ui = ui;
    this.shown = null; // {board, dice, positionId, matchId, caption}
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
      this.render();
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
