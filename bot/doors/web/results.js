// Ranked plays and cube decisions as tables (the Play mode's hint and the Analyse mode).

function cell(row, text, cls = "") {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  row.appendChild(td);
}

const pct = (x) => (100 * x).toFixed(1);
const num = (x) => (x >= 0 ? "+" : "") + x.toFixed(3);

// Columns a phone's narrow screen leaves out (style.css): the backgammon chances and the depth.
const MINOR = new Set(["W bg", "L bg", "Depth"]);

// moves: the "moves" of GET /v1/moves; onPick(move) when a row is clicked.
export function showPlays(container, answer, onPick) {
  container.replaceChildren();
  const match = answer.moves.length && answer.moves[0].mwc !== null;
  const table = document.createElement("table");
  table.className = "plays";
  const head = table.createTHead().insertRow();
  for (const h of ["#", "Move", match ? "MWC" : "Equity", "Diff", "Win", "W g", "W bg", "L g", "L bg", "Depth"]) {
    const th = document.createElement("th");
    th.textContent = h;
    if (MINOR.has(h)) th.className = "minor";
    head.appendChild(th);
  }
  const body = table.createTBody();
  const best = answer.moves.length ? (match ? answer.moves[0].mwc : answer.moves[0].equity) : 0;
  answer.moves.forEach((m, i) => {
    const row = body.insertRow();
    row.dataset.testid = "hint-row";
    row.tabIndex = 0;
    const value = match ? m.mwc : m.equity;
    cell(row, String(i + 1));
    cell(row, m.move || "(no move)", "move");
    cell(row, match ? pct(value) + "%" : num(value));
    cell(row, i === 0 ? "" : match ? (100 * (value - best)).toFixed(1) : (value - best).toFixed(3));
    const p = m.probabilities;
    for (const [x, minor] of [[p.win, false], [p.winG, false], [p.winBg, true], [p.loseG, false], [p.loseBg, true]]) {
      cell(row, pct(x), minor ? "prob minor" : "prob");
    }
    cell(row, `${m.plies}-ply`, "minor");
    const pick = () => {
      for (const r of body.rows) r.classList.remove("picked");
      row.classList.add("picked");
      onPick(m);
    };
    row.addEventListener("click", pick);
    row.addEventListener("keydown", (e) => { if (e.key === "Enter") pick(); });
  });
  container.appendChild(table);
}

const VERDICTS = {
  NODOUBLE_TAKE: "No double, take", NODOUBLE_BEAVER: "No double, beaver", DOUBLE_TAKE: "Double, take",
  DOUBLE_PASS: "Double, pass", DOUBLE_BEAVER: "Double, beaver", TOOGOOD_TAKE: "Too good to double, take",
  TOOGOOD_PASS: "Too good to double, pass", NO_REDOUBLE_TAKE: "No redouble, take",
  NO_REDOUBLE_BEAVER: "No redouble, beaver", REDOUBLE_TAKE: "Redouble, take", REDOUBLE_PASS: "Redouble, pass",
  TOOGOODRE_TAKE: "Too good to redouble, take", TOOGOODRE_PASS: "Too good to redouble, pass",
  OPTIONAL_DOUBLE_TAKE: "Optional double, take", OPTIONAL_DOUBLE_PASS: "Optional double, pass",
  OPTIONAL_DOUBLE_BEAVER: "Optional double, beaver", OPTIONAL_REDOUBLE_TAKE: "Optional redouble, take",
  OPTIONAL_REDOUBLE_PASS: "Optional redouble, pass", NODOUBLE_DEADCUBE: "No double (dead cube)",
  NO_REDOUBLE_DEADCUBE: "No redouble (dead cube)", NOT_AVAILABLE: "No cube action available",
};

// answer: GET /v1/cube.
export function showCube(container, answer) {
  container.replaceChildren();
  const box = document.createElement("div");
  box.className = "cube-verdict";
  box.dataset.testid = "cube-verdict";
  const title = document.createElement("p");
  title.className = "verdict";
  title.textContent = `${VERDICTS[answer.decision] || answer.decision} (${answer.decision})`;
  box.appendChild(title);
  const table = document.createElement("table");
  const e = answer.equities, m = answer.mwc;
  for (const [name, value, mwc] of [["No double", e.no_double, m && m.no_double],
    ["Double, take", e.double_take, m && m.double_take], ["Double, pass", e.double_pass, m && m.double_pass]]) {
    const row = table.insertRow();
    cell(row, name);
    cell(row, num(value));
    if (m) cell(row, pct(mwc) + "% MWC");
  }
  box.appendChild(table);
  const p = answer.probabilities;
  const probs = document.createElement("p");
  probs.className = "probs";
  probs.textContent = `Win ${pct(p.win)}% (gammon ${pct(p.winG)}%, backgammon ${pct(p.winBg)}%) · ` +
    `lose gammon ${pct(p.loseG)}%, backgammon ${pct(p.loseBg)}%`;
  box.appendChild(probs);
  container.appendChild(box);
}
