// Ranked plays and cube decisions as tables (the Play mode's hint and the Analyse mode).

function cell(row, text, cls = "") {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  row.appendChild(td);
}

const pct = (x) => (100 * x).toFixed(1);
const num = (x) => (x >= 0 ? "+" : "") + x.toFixed(3);

// Each game's probability columns (bot/doors/codecs.py's `columns`), by the answer's `variant`: the label,
// the answer's field, and whether a phone's narrow screen leaves it out (style.css). Long nardy's mars is in
// winG and loseG; it has no backgammons.
const COLUMNS = {
  backgammon: [["Win", "win"], ["W g", "winG"], ["W bg", "winBg", true], ["L g", "loseG"], ["L bg", "loseBg", true]],
  long: [["Win", "win"], ["W mars", "winG"], ["L mars", "loseG"]],
};
const columnsOf = (answer) => COLUMNS[answer.variant] || COLUMNS.backgammon;
const TITLES = {
  "#": "rank", Equity: "cubeless money equity after the play (points per game)",
  MWC: "match-winning chance after the play, %", Diff: "difference from the first play",
  Win: "chance to win, %", "W g": "chance to win a gammon or backgammon, %", "W bg": "chance to win a backgammon, %",
  "L g": "chance to lose a gammon or backgammon, %", "L bg": "chance to lose a backgammon, %",
  "W mars": "chance to win a mars (the loser has borne off no checker), %", "L mars": "chance to lose a mars, %",
  Depth: "search depth of the row's evaluation: rows of different depths are not comparable",
};

// The table's header row; minor: the titles a phone leaves out.
function header(table, names, minor = new Set()) {
  const head = table.createTHead().insertRow();
  for (const h of names) {
    const th = document.createElement("th");
    th.textContent = h;
    th.scope = "col";
    if (TITLES[h]) th.title = TITLES[h];
    if (minor.has(h)) th.className = "minor";
    head.appendChild(th);
  }
}

// answer: GET /v1/moves's; onPick(move) when a row is clicked (null: rows are not picked);
// testid of each row; played: the move played (match review), marked in its row.
export function showPlays(container, answer, onPick, { testid = "hint-row", played = null } = {}) {
  container.replaceChildren();
  const match = answer.moves.length && answer.moves[0].mwc !== null;
  const table = document.createElement("table");
  table.className = "plays";
  table.dataset.variant = answer.variant || "backgammon";
  const columns = columnsOf(answer);
  header(table, ["#", "Move", match ? "MWC" : "Equity", "Diff", ...columns.map((c) => c[0]), "Depth"],
    new Set(columns.filter((c) => c[2]).map((c) => c[0])));
  const body = table.createTBody();
  const best = answer.moves.length ? (match ? answer.moves[0].mwc : answer.moves[0].equity) : 0;
  answer.moves.forEach((m, i) => {
    const row = body.insertRow();
    row.dataset.testid = testid;
    if (played !== null && m.move === played) row.classList.add("played");
    cells(row, m, i, match, best, played, columns);
    if (!onPick) return;
    row.tabIndex = 0;
    const pick = () => {
      for (const r of body.rows) r.classList.remove("picked");
      row.classList.add("picked");
      onPick(m);
    };
    row.addEventListener("click", pick);
    row.addEventListener("keydown", (e) => { if (e.key === "Enter") pick(); });
  });
  const depths = new Set(answer.moves.map((m) => m.plies));
  if (depths.size > 1) {
    const caption = table.createCaption();
    caption.textContent = `The first plays were searched at ${Math.max(...depths)}-ply, the others only at ` +
      `${Math.min(...depths)}-ply: compare values of the same depth.`;
  }
  container.appendChild(table);
}

// One ranked play's cells: rank, play (a badge on the one played), value, difference, chances, depth.
function cells(row, m, i, match, best, played, columns) {
  const value = match ? m.mwc : m.equity;
  cell(row, String(i + 1));
  cell(row, m.move || "(no move)", "move");
  if (played !== null && m.move === played) {
    const badge = document.createElement("span");
    badge.className = "badge";
    badge.textContent = "played";
    row.cells[1].appendChild(badge);
  }
  cell(row, match ? pct(value) + "%" : num(value));
  cell(row, i === 0 ? "" : match ? (100 * (value - best)).toFixed(1) : (value - best).toFixed(3));
  for (const [, field, minor] of columns) cell(row, pct(m.probabilities[field]), minor ? "prob minor" : "prob");
  cell(row, `${m.plies}-ply`, "depth");
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

// A cube verdict (GNU Backgammon's name, e.g. NODOUBLE_TAKE) as GNU Backgammon writes it for people.
export function verdictWords(decision) {
  return VERDICTS[decision] || decision.toLowerCase().replace(/_/g, " ");
}

// The cube decision's three equities (the doubler's, a pass +1) and each one's difference from the proper
// action's (no double, or double and the opponent's better answer); played: the action taken, marked.
export function cubeTable(e, m = null, played = null) {
  const table = document.createElement("table");
  table.className = "cube-actions";
  const proper = Math.max(e.no_double, Math.min(e.double_take, e.double_pass));
  const head = table.createTHead().insertRow();
  for (const [h, title] of [["Action", ""], ["Equity", "the doubler's cubeful equity, a pass counting +1"],
    ["Diff", "difference from the proper cube action"], ...(m ? [["MWC", "match-winning chance, %"]] : [])]) {
    const th = document.createElement("th");
    th.textContent = h;
    if (title) th.title = title;
    head.appendChild(th);
  }
  const body = table.createTBody();
  const doubled = e.double_take <= e.double_pass ? "double_take" : "double_pass"; // the opponent's better answer
  const playedKey = { "no double": "no_double", double: doubled, take: "double_take", pass: "double_pass" }[played];
  for (const [key, name] of [["no_double", "No double"], ["double_take", "Double, take"], ["double_pass", "Double, pass"]]) {
    const row = body.insertRow();
    row.dataset.testid = "cube-row";
    cell(row, name);
    cell(row, num(e[key]));
    const diff = e[key] - proper;
    cell(row, Math.abs(diff) < 5e-4 ? "" : num(diff));
    if (m) cell(row, pct(m[key]) + "%");
    if (key === playedKey) row.classList.add("played");
  }
  return table;
}

// answer: GET /v1/cube.
export function showCube(container, answer) {
  container.replaceChildren();
  const box = document.createElement("div");
  box.className = "cube-verdict";
  box.dataset.testid = "cube-verdict";
  const title = document.createElement("p");
  title.className = "verdict";
  title.textContent = `Proper cube action: ${verdictWords(answer.decision)}`;
  title.title = answer.decision;
  box.appendChild(title);
  box.appendChild(cubeTable(answer.equities, answer.mwc));
  const p = answer.probabilities;
  const probs = document.createElement("p");
  probs.className = "probs";
  probs.textContent = answer.variant === "long"
    ? `Win ${pct(p.win)}% (mars ${pct(p.winG)}%) · lose mars ${pct(p.loseG)}%`
    : `Win ${pct(p.win)}% (gammon ${pct(p.winG)}%, backgammon ${pct(p.winBg)}%) · ` +
      `lose gammon ${pct(p.loseG)}%, backgammon ${pct(p.loseBg)}%`;
  box.appendChild(probs);
  container.appendChild(box);
}
