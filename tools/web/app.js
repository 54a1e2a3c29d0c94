// SPDX-License-Identifier: MIT
// The boardproof explorer page. State lives in the address's hash,
//   #instance=SPEC[&position=POS][&moves=M1,M2,...]
// so every position has a shareable address and the browser's back and forward walk
// the positions visited. Each state is asked of /api/query; the board is drawn as SVG
// from the answer's geometry (cells with their row, place and half-cell x).
'use strict';

const SVGNS = 'http://www.w3.org/2000/svg';
const $ = (id) => document.getElementById(id);

// Stone colours per game family (RULES.md's cell characters); others get a hue.
const PALETTES = {
  taifas: { x: '#1d1d1d', o: '#f7f7f2' },
  chicken: { b: '#1d1d1d', o: '#ee8a1f', n: '#c9a0b4' },
  landscape: { b: '#1d1d1d', o: '#ee8a1f', n: '#c9a0b4' },
  glorieta: { y: '#f1cd2b', b: '#1d1d1d', n: '#f0a6c8' },
  blooms: { r: '#d63b2f', y: '#f1cd2b', g: '#9aa0a6', k: '#1d1d1d' },
  mirador: { r: '#d63b2f', b: '#2f63c8' },
};
const VALUE_CLASS = { win: 'win', draw: 'draw', loss: 'loss' };
const VALUE_FILL = { win: '#2e9d3e', draw: '#d8b41a', loss: '#c0392b' };
const GROUP_TITLE = { winning: 'winning', drawing: 'drawing', losing: 'losing' };
const GROUP_CLASS = { winning: 'win', drawing: 'draw', losing: 'loss' };

let current = null;   // the last /api/query answer
let state = null;     // {instance, position, moves}
let instances = [];
let openingsFor = null;
let claimsFor = null;
let startPosition = null; // the start's position text, from the opening map

function stoneColour(game, ch) {
  const pal = PALETTES[game] || {};
  if (pal[ch]) return pal[ch];
  const h = (ch.charCodeAt(0) * 47) % 360;
  return `hsl(${h}, 55%, 50%)`;
}

function dark(hex) {
  if (!hex.startsWith('#')) return false;
  const n = parseInt(hex.slice(1), 16);
  return ((n >> 16) & 255) * 0.3 + ((n >> 8) & 255) * 0.59 + (n & 255) * 0.11 < 128;
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVGNS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

function html(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}

// ---- the address ----

function parseHash() {
  const h = new URLSearchParams(location.hash.replace(/^#/, ''));
  const moves = (h.get('moves') || '').split(',').filter((m) => m.length);
  return { instance: h.get('instance') || '', position: h.get('position') || '', moves };
}

function hashOf(s) {
  const p = new URLSearchParams();
  p.set('instance', s.instance);
  if (s.position) p.set('position', s.position);
  if (s.moves.length) p.set('moves', s.moves.join(','));
  return '#' + p.toString();
}

function go(s) {
  const h = hashOf(s);
  if (h === location.hash) load();
  else location.hash = h; // a new history entry; hashchange loads it
}

function apiUrl(path, s) {
  const q = ['instance=' + encodeURIComponent(s.instance)];
  if (s.position) q.push('position=' + encodeURIComponent(s.position));
  if (s.moves && s.moves.length) q.push('moves=' + s.moves.map(encodeURIComponent).join('+'));
  return path + '?' + q.join('&');
}

async function getJson(url) {
  const r = await fetch(url, { cache: 'no-store' });
  let body;
  try {
    body = await r.json();
  } catch (e) {
    body = { error: `the server answered ${r.status} without JSON` };
  }
  return { status: r.status, body };
}

// ---- drawing ----

// Cell centres in user units: square grids by column and row, hex cells (pointy top)
// by half-cell x and row.
function layout(board, size) {
  const hex = board.shape !== 'square';
  const w = hex ? Math.sqrt(3) * size : 2 * size; // cell width
  const rowh = hex ? 1.5 * size : 2 * size;
  const pts = board.cells.map((c) => ({
    x: (hex ? (c.x * w) / 2 : c.col * w) + w / 2,
    y: c.row * rowh + (hex ? size : size),
  }));
  return { hex, w, rowh, pts };
}

function cellPath(hex, x, y, size) {
  if (!hex) {
    const s = size * 0.96;
    return `M${x - s},${y - s}h${2 * s}v${2 * s}h${-2 * s}z`;
  }
  let d = '';
  for (let i = 0; i < 6; i++) {
    const a = (Math.PI / 180) * (60 * i - 90);
    d += (i ? 'L' : 'M') + (x + size * 0.97 * Math.cos(a)).toFixed(2) + ',' +
      (y + size * 0.97 * Math.sin(a)).toFixed(2);
  }
  return d + 'z';
}

// Draws board into svg. moves: the answer's moves (or null); onCell(cellIndex) when a
// cell that some move changes is clicked. Returns the cell groups by index.
function drawBoard(svg, answer, size, opts) {
  const board = answer.board;
  const game = answer.instance.split(':')[0];
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const L = layout(board, size);
  const margin = opts.margins ? size * 1.6 : size * 0.3;
  const my = opts.margins && L.hex ? size * 0.4 : margin; // hex boards: no numbers above
  let maxx = 0, maxy = 0;
  for (const p of L.pts) {
    maxx = Math.max(maxx, p.x + L.w / 2);
    maxy = Math.max(maxy, p.y + size);
  }
  const W = maxx + 2 * margin, H = maxy + 2 * my;
  svg.setAttribute('viewBox', `${-margin} ${-my} ${W} ${H}`);
  svg.setAttribute('width', Math.round(W * (opts.scale || 1)));
  svg.setAttribute('height', Math.round(H * (opts.scale || 1)));

  // which moves touch each cell, best first (moves come best first)
  const byCell = board.cells.map(() => []);
  (answer.moves || []).forEach((m) => (m.cells || []).forEach((c) => byCell[c] && byCell[c].push(m)));

  if (opts.margins) {
    // row letters left and right; on square boards column numbers above and below
    const rowsSeen = new Map();
    board.cells.forEach((c, i) => {
      const p = L.pts[i];
      const r = rowsSeen.get(c.row) || { minx: Infinity, maxx: -Infinity, y: p.y };
      r.minx = Math.min(r.minx, p.x);
      r.maxx = Math.max(r.maxx, p.x);
      rowsSeen.set(c.row, r);
    });
    for (const [row, r] of rowsSeen) {
      const name = board.cells.find((c) => c.row === row).name.replace(/[0-9]+$/, '');
      for (const x of [r.minx - L.w * 0.85, r.maxx + L.w * 0.85]) {
        const t = el('text', { x, y: r.y + 5, 'text-anchor': 'middle', class: 'margin' }, svg);
        t.textContent = name;
      }
    }
    if (!L.hex) {
      board.cells.filter((c) => c.row === 0).forEach((c) => {
        const p = L.pts[board.cells.indexOf(c)];
        for (const y of [p.y - size * 1.45, maxy + size * 0.75]) {
          const t = el('text', { x: p.x, y, 'text-anchor': 'middle', class: 'margin' }, svg);
          t.textContent = String(c.col + 1);
        }
      });
    }
  }

  const groups = [];
  board.cells.forEach((c, i) => {
    const p = L.pts[i];
    const g = el('g', { class: 'cell', 'data-cell': c.name }, svg);
    const best = byCell[i][0];
    const path = cellPath(L.hex, p.x, p.y, size);
    // a few one-cell moves on an empty cell (Taifas: either colour) each get a slice
    // of it with their own value; otherwise the cell shows its best move's
    const split = opts.values && opts.split && c.char === '.' && byCell[i].length >= 2 &&
      byCell[i].length <= 4 && byCell[i].every((m) => m.cells.length === 1);
    const shape = el('path', {
      d: path,
      class: 'cell-shape',
      fill: best && opts.values && !split ? VALUE_FILL[best.value] || '#eee' : '#eef0f2',
    }, g);
    if (best && opts.values) shape.setAttribute('fill-opacity', '0.85');
    if (c.char !== '.') {
      const col = stoneColour(game, c.char);
      el('circle', { cx: p.x, cy: p.y, r: size * 0.62, fill: col, class: 'stone' }, g);
      const t = el('text', {
        x: p.x, y: p.y + 4, 'text-anchor': 'middle', class: 'stone-letter',
        fill: dark(col) ? '#fff' : '#222',
      }, g);
      t.textContent = c.char;
    } else if (opts.names && L.hex && !split) {
      const t = el('text', { x: p.x, y: p.y - size * 0.5, 'text-anchor': 'middle', class: 'cellname' }, g);
      t.textContent = c.name;
    }
    if (split) {
      const id = `${svg.id}-clip-${i}`;
      const clip = el('clipPath', { id }, g);
      el('path', { d: path }, clip);
      const subs = byCell[i].slice().sort((a, b) => (a.move < b.move ? -1 : a.move > b.move ? 1 : 0));
      const k = subs.length, w = L.hex ? L.w : 2 * size, x0 = p.x - w / 2;
      subs.forEach((m, j) => {
        const sg = el('g', { class: 'sub', 'data-move': m.move }, g);
        el('rect', {
          x: x0 + (j * w) / k, y: p.y - size * 1.2, width: w / k, height: size * 2.4,
          fill: VALUE_FILL[m.value] || '#eee', 'fill-opacity': '0.85', 'clip-path': `url(#${id})`,
          class: 'slice',
        }, sg);
        const cx = x0 + ((j + 0.5) * w) / k;
        const label = el('text', { x: cx, y: p.y - size * 0.35, 'text-anchor': 'middle', class: 'slice-label' }, sg);
        label.textContent = m.move.replace(c.name, '');
        const t = el('text', {
          x: cx, y: p.y + size * 0.4, 'text-anchor': 'middle',
          class: 'remote' + (m.value === 'draw' ? ' dark' : ''),
        }, sg);
        t.textContent = m.remoteness === null ? '\u221e' : String(m.remoteness);
        const st = el('title', {}, sg);
        st.textContent = `${m.move}: ${valueText(m.value, m.remoteness)} for the mover`;
        if (opts.onMove) {
          sg.classList.add('playable');
          sg.addEventListener('click', (e) => {
            e.stopPropagation();
            opts.onMove(m.move);
          });
        }
      });
      if (k > 1) {
        for (let j = 1; j < k; j++) {
          const x = x0 + (j * w) / k;
          el('line', { x1: x, x2: x, y1: p.y - size, y2: p.y + size, class: 'slice-line', 'clip-path': `url(#${id})` }, g);
        }
      }
    } else if (best && opts.values && c.char === '.') {
      const t = el('text', {
        x: p.x, y: p.y + 6, 'text-anchor': 'middle',
        class: 'remote' + (best.value === 'draw' ? ' dark' : ''),
      }, g);
      t.textContent = best.remoteness === null ? '\u221e' : String(best.remoteness);
    }
    const title = el('title', {}, g);
    title.textContent = c.name + (byCell[i].length
      ? ': ' + byCell[i].map((m) => `${m.move} ${valueText(m.value, m.remoteness)}`).join(', ')
      : '');
    if (byCell[i].length && opts.onCell && !(split && opts.onMove)) {
      g.classList.add('playable');
      g.addEventListener('click', () => opts.onCell(i, byCell[i]));
    }
    groups.push(g);
  });
  return groups;
}

function valueText(v, r) {
  if (r === null) return `${v} (by repetition)`;
  return `${v} in ${r}`;
}

// ---- the page ----

function showBanner(text) {
  const b = $('banner');
  b.textContent = text || '';
  b.hidden = !text;
}

function play(move) {
  go({ instance: state.instance, position: state.position, moves: state.moves.concat([move]) });
}

function highlight(move, on) {
  if (!current) return;
  const m = current.moves.find((x) => x.move === move);
  if (!m) return;
  const sub = document.querySelector(`#board g.sub[data-move="${move}"]`);
  if (sub) sub.classList.toggle('hl', on);
  for (const c of m.cells) {
    const g = document.querySelector(`#board g.cell[data-cell="${current.board.cells[c].name}"]`);
    if (g) g.classList.toggle('hl', on);
  }
}

function moveButton(m) {
  const b = html('button', {
    type: 'button',
    class: 'move ' + (VALUE_CLASS[m.value] || ''),
    'data-move': m.move,
    title: `${m.move}: ${valueText(m.value, m.remoteness)} for the mover; leads to ${m.position}`,
  }, m.move);
  b.addEventListener('click', () => play(m.move));
  b.addEventListener('mouseenter', () => highlight(m.move, true));
  b.addEventListener('mouseleave', () => highlight(m.move, false));
  return b;
}

function renderMoves(a) {
  const box = $('moves');
  box.replaceChildren();
  if (a.missing) {
    box.appendChild(html('p', { class: 'none' },
      'No values: this position is not in the database.'));
    return;
  }
  if (a.terminal) {
    box.appendChild(html('p', { class: 'none' }, 'The game is over: no moves.'));
    return;
  }
  if (!a.moves.length) {
    box.appendChild(html('p', { class: 'none' }, 'No legal moves.'));
    return;
  }
  for (const key of ['winning', 'drawing', 'losing']) {
    const runs = a.groups[key];
    const g = html('div', { class: 'group', 'data-group': key });
    const n = runs.reduce((s, r) => s + r.moves.length, 0);
    g.appendChild(html('h3', { class: GROUP_CLASS[key] }, `${GROUP_TITLE[key]} (${n})`));
    if (!runs.length) g.appendChild(html('div', { class: 'none' }, 'none'));
    for (const run of runs) {
      const row = html('div', { class: 'run' });
      row.appendChild(html('span', { class: 'rem' },
        run.remoteness === null ? 'by repetition' : `in ${run.remoteness}`));
      const ms = html('span', { class: 'ms' });
      for (const name of run.moves) ms.appendChild(moveButton(a.moves.find((m) => m.move === name)));
      row.appendChild(ms);
      g.appendChild(row);
    }
    box.appendChild(g);
  }
}

function renderLine(a) {
  const box = $('line');
  box.replaceChildren();
  const start = html('a', { title: 'back to here' }, state.position ? 'the given position' : 'start');
  start.addEventListener('click', () => go({ instance: state.instance, position: state.position, moves: [] }));
  box.appendChild(start);
  (a.line || []).forEach((step, i) => {
    box.appendChild(document.createTextNode(' \u203a '));
    const l = html('a', { title: step.position }, step.move);
    l.addEventListener('click', () => go({
      instance: state.instance, position: state.position, moves: state.moves.slice(0, i + 1),
    }));
    box.appendChild(l);
  });
}

function chooser(cell, moves) {
  const box = $('chooser');
  box.replaceChildren();
  if (moves.length === 1) {
    box.hidden = true;
    play(moves[0].move);
    return;
  }
  box.appendChild(html('span', {}, `${moves.length} moves on ${current.board.cells[cell].name}:`));
  for (const m of moves) {
    const b = moveButton(m);
    b.textContent = `${m.move} \u00b7 ${m.remoteness === null ? '\u221e' : m.remoteness}`;
    box.appendChild(b);
  }
  box.hidden = false;
}

function renderStatus(a) {
  const s = $('status');
  s.replaceChildren();
  if (a.missing) {
    s.appendChild(document.createTextNode(`${a.to_move} to move: `));
    s.appendChild(html('span', { class: 'v-none', id: 'missing' }, 'not in the database'));
    return;
  }
  if (a.value === undefined) return;
  const who = a.to_move ? `${a.to_move} to move` : 'to move';
  if (a.terminal) {
    s.appendChild(document.createTextNode(`Game over: `));
    s.appendChild(html('span', { class: 'v-' + a.value }, a.value));
    s.appendChild(document.createTextNode(` for ${a.to_move}, the player to move.`));
    return;
  }
  s.appendChild(document.createTextNode(`${who}: `));
  s.appendChild(html('span', { class: 'v-' + a.value, id: 'value' }, valueText(a.value, a.remoteness)));
  s.appendChild(document.createTextNode(` with perfect play \u00b7 ${a.moves.length} moves`));
}

async function load() {
  state = parseHash();
  $('chooser').hidden = true;
  if (!state.instance) {
    const first = instances.find((i) => i.current && i.complete) || instances.find((i) => i.current);
    if (first) {
      history.replaceState(null, '', hashOf({ instance: first.instance, position: '', moves: [] }));
      state = parseHash();
    } else {
      showBanner(instances.length ? 'No table in this database is complete and current.' :
        'The database holds no solved table yet (boardproof solve GAME).');
      return;
    }
  }
  syncPicker();
  const { status, body } = await getJson(apiUrl('/api/query', state));
  $('undo').disabled = !state.moves.length;
  if (status === 200) {
    showBanner('');
    current = body;
    if (body.instance !== state.instance) {
      // another spelling of the instance: the address keeps the canonical one
      state.instance = body.instance;
      history.replaceState(null, '', hashOf(state));
      syncPicker();
    }
  } else if (status === 404 && body.board) {
    // drawn, but with no values: said plainly
    current = Object.assign({ moves: [], groups: { winning: [], drawing: [], losing: [] } }, body,
      { missing: true });
    showBanner('Not in the database: ' + body.error.replace(/^position not in the database: /, ''));
  } else {
    showBanner(body.error || `error ${status}`);
    if (status !== 200) {
      $('status').replaceChildren();
      if (!current || current.instance.split(',')[0] !== state.instance.split(',')[0]) {
        $('board').replaceChildren();
        $('moves').replaceChildren();
        current = null;
      }
      return;
    }
  }
  $('position').value = current.position;
  renderStatus(current);
  drawBoard($('board'), current, current.board.cells.length > 40 ? 24 : 32, {
    margins: true, values: true, names: true, split: true, onCell: chooser, onMove: play,
  });
  renderMoves(current);
  renderLine(current);
  document.title = `${current.position} \u2014 ${current.instance}`;
  loadOpenings();
  loadClaims();
}

async function loadOpenings() {
  if (openingsFor === state.instance) return;
  openingsFor = state.instance;
  const { status, body } = await getJson(apiUrl('/api/openings', { instance: state.instance, moves: [] }));
  const list = $('openings-list');
  if (status !== 200) {
    $('openings').replaceChildren();
    list.textContent = body.error || `error ${status}`;
    return;
  }
  startPosition = body.position;
  drawBoard($('openings'), body, 18, {
    margins: false, values: true, names: false, scale: 1,
    onCell: (cell, moves) => go({ instance: state.instance, position: '', moves: [moves[0].move] }),
  });
  const counts = { win: 0, draw: 0, loss: 0 };
  body.moves.forEach((m) => counts[m.value]++);
  list.textContent = `start: ${valueText(body.value, body.remoteness)} for ${body.to_move}; ` +
    `${body.moves.length} first moves: ${counts.win} win, ${counts.draw} draw, ${counts.loss} lose` +
    (body.pie && body.value_with_choice
      ? `; with the second player's choice the first player's best is a ${body.value_with_choice}`
      : '');
}

// The claims panel: /api/claims's verdicts (what `boardproof claims --json` prints),
// each with its detail and, where there is one, a witness that plays its line here.
async function loadClaims() {
  if (claimsFor === state.instance) return;
  const inst = state.instance;
  claimsFor = inst;
  const box = $('claims');
  box.replaceChildren(html('p', { class: 'none', id: 'claims-wait' },
    'checking the claims on the whole table\u2026'));
  const { status, body } = await getJson('/api/claims?instance=' + encodeURIComponent(inst));
  if (claimsFor !== inst) return; // another instance was picked meanwhile
  box.replaceChildren();
  if (status !== 200) {
    claimsFor = null; // asked again on the next position
    box.appendChild(html('p', { class: 'none' }, body.error || `error ${status}`));
    return;
  }
  if (!body.claims.length) box.appendChild(html('p', { class: 'none' }, 'No claims apply to this game.'));
  for (const c of body.claims) {
    const d = html('div', { class: 'claim', 'data-claim': c.name });
    const head = html('div', { class: 'claim-head' });
    head.appendChild(html('span', { class: 'claim-name' }, c.name));
    head.appendChild(html('span', { class: 'verdict v-' + c.verdict.replace('/', '') }, c.verdict));
    d.appendChild(head);
    d.appendChild(html('p', { class: 'claim-detail' }, c.detail));
    if (c.witness) {
      const w = c.witness;
      const moves = w.moves.split(' ').filter((m) => m.length);
      const a = html('a', {
        class: 'witness', 'data-claim': c.name, href: '#',
        title: `${w.position}${moves.length ? ' then ' + w.moves : ''}`,
      }, `witness: ${w.shows}`);
      a.addEventListener('click', (e) => {
        e.preventDefault();
        go({ instance: inst, position: w.position === startPosition ? '' : w.position, moves });
      });
      d.appendChild(a);
    }
    box.appendChild(d);
  }
}

function syncPicker() {
  const sel = $('instance');
  const want = state.instance;
  const known = Array.from(sel.options).find((o) => o.value === want);
  if (!known && want) {
    const o = html('option', { value: want }, want);
    sel.appendChild(o);
  }
  sel.value = want;
}

async function init() {
  const { status, body } = await getJson('/api/instances');
  const sel = $('instance');
  if (status === 200) {
    instances = body.instances;
    for (const i of instances) {
      // a table of another rules version is never answered from; an unfinished one
      // (a solve under way) answers for the tiers it has
      const valued = i.value === 'win' || i.value === 'loss' || i.value === 'draw';
      const label = `${i.instance} \u2014 ${valued ? valueText(i.value, i.remoteness) : i.value}`;
      const o = html('option', { value: i.instance }, label);
      if (!i.current) o.disabled = true;
      sel.appendChild(o);
    }
  } else {
    showBanner(body.error || `error ${status}`);
  }
  sel.addEventListener('change', () => go({ instance: sel.value, position: '', moves: [] }));
  $('back').addEventListener('click', () => history.back());
  $('forward').addEventListener('click', () => history.forward());
  $('start').addEventListener('click', () => go({ instance: state.instance, position: '', moves: [] }));
  $('undo').addEventListener('click', () => go({
    instance: state.instance, position: state.position, moves: state.moves.slice(0, -1),
  }));
  $('posform').addEventListener('submit', (e) => {
    e.preventDefault();
    go({ instance: state.instance, position: $('position').value.trim(), moves: [] });
  });
  window.addEventListener('hashchange', load);
  // arrow keys walk the history, as the back and forward buttons do
  window.addEventListener('keydown', (e) => {
    if (e.target && (e.target.tagName === 'INPUT' || e.target.tagName === 'SELECT')) return;
    if (e.key === 'ArrowLeft') history.back();
    else if (e.key === 'ArrowRight') history.forward();
  });
  await load();
}

init();
