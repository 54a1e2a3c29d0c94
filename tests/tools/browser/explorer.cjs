// SPDX-License-Identifier: MIT
// Drives the explorer page in headless Chromium (Debian's, never a downloaded one):
// loads it, checks the position and values against the API, clicks a move in the
// list, sees the new position and its values, plays a move by clicking a board cell,
// goes back twice, checks the claims panel and clicks a claim's witness, and opens a
// position that is not in the database. Saves screenshots of the start
// (NAME-start.png), after the first move (NAME.png) and at a witness's end
// (NAME-claims.png). Usage:
//   node explorer.cjs URL SCREENSHOT.png SPEC [NOTFOUND-SPEC NOTFOUND-POSITION]
// with PW_DIR the folder whose node_modules holds playwright-core, CHROMIUM the
// browser (default /usr/bin/chromium). Prints "browser: N passed, M failed".
'use strict';
const path = require('path');
const { chromium } = require(require.resolve('playwright-core', {
  paths: [path.resolve(process.env.PW_DIR || '.')],
}));

const [url, shot, spec, nfSpec, nfPos] = process.argv.slice(2);
let pass = 0, fail = 0;
function check(name, ok, detail) {
  if (ok) pass++;
  else {
    fail++;
    console.log(`FAIL ${name}${detail !== undefined ? ': ' + JSON.stringify(detail) : ''}`);
  }
}
const vtext = (v, r) => (r === null ? `${v} (by repetition)` : `${v} in ${r}`);
async function api(q) {
  const r = await fetch(url + 'api/query?' + q);
  return r.json();
}
const T = { timeout: 10000 };

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      // a 404 for a position outside the table is expected; anything else is not
      if (m.type() === 'error' && !/404/.test(m.text())) errors.push(m.text());
    });

    // 1. load: the start position, its value, every move, as the API says
    await page.goto(`${url}#instance=${encodeURIComponent(spec)}`);
    await page.waitForSelector('#value', T);
    const a0 = await api('instance=' + encodeURIComponent(spec));
    check('start position', (await page.inputValue('#position')) === a0.position,
      await page.inputValue('#position'));
    check('start value', (await page.textContent('#value')) === vtext(a0.value, a0.remoteness),
      await page.textContent('#value'));
    const buttons = await page.$$eval('#moves button.move', (bs) =>
      bs.map((b) => ({ move: b.dataset.move, cls: b.className })));
    check('every move listed', buttons.length === a0.moves.length, [buttons.length, a0.moves.length]);
    check('move colours are values', a0.moves.every((m) =>
      buttons.some((b) => b.move === m.move && b.cls.includes(m.value))));
    const groups = await page.$$eval('#moves .group', (gs) => gs.map((g) => g.dataset.group));
    check('groups', groups.join() === 'winning,drawing,losing', groups);
    const pickers = await page.$$eval('#instance option', (os) => os.map((o) => o.value));
    check('instance picker', pickers.includes(a0.instance), pickers);
    const opening = await page.$$('#openings g.cell');
    check('opening map drawn', opening.length === a0.board.cells.length, opening.length);
    // the number on the first move's cell is its remoteness
    const m0 = a0.moves[0];
    if (m0.cells.length) {
      const name = a0.board.cells[m0.cells[0]].name;
      // a cell split between its moves (Taifas: either colour) shows each move's number
      const slice = await page.$(`#board g.sub[data-move="${m0.move}"] text.remote`);
      const txt = slice ? await slice.textContent()
        : await page.textContent(`#board g.cell[data-cell="${name}"] text.remote`);
      check('value number on the cell', txt === (m0.remoteness === null ? '\u221e' : String(m0.remoteness)), [name, txt]);
    }

    const slices = await page.$$eval('#board g.sub', (gs) => gs.map((g) => g.dataset.move));
    const oneCell = a0.moves.filter((m) => m.cells.length === 1);
    const perCell = {};
    a0.moves.forEach((m) => m.cells.forEach((c) => { perCell[c] = (perCell[c] || 0) + 1; }));
    const expectSlices = oneCell.filter((m) => a0.moves.filter((x) => x.cells.includes(m.cells[0]))
      .every((x) => x.cells.length === 1) && perCell[m.cells[0]] >= 2 && perCell[m.cells[0]] <= 4);
    check('a slice per move where moves share a cell', slices.length === expectSlices.length,
      [slices.length, expectSlices.length]);

    await page.screenshot({ path: shot.replace(/\.png$/, '-start.png'), fullPage: true });

    // 2. click the best move in the list: the new position and its values
    await page.click(`#moves button.move[data-move="${m0.move}"]`);
    await page.waitForFunction((p) => document.getElementById('position').value === p, m0.position, T);
    await page.waitForSelector('#value', T);
    const a1 = await api('instance=' + encodeURIComponent(spec) + '&moves=' + encodeURIComponent(m0.move));
    check('position after the move', a1.position === m0.position, a1.position);
    check('value after the move', (await page.textContent('#value')) === vtext(a1.value, a1.remoteness));
    check('the move was a ' + m0.value + ', the position a ' + a1.value + ' for the other side',
      (m0.value === 'win' && a1.value === 'loss') || (m0.value === 'loss' && a1.value === 'win') ||
      (m0.value === 'draw' && a1.value === 'draw'));
    check('address names the move', decodeURIComponent(await page.evaluate(() => location.hash))
      .includes('moves=' + m0.move));
    const n1 = await page.$$eval('#moves button.move', (bs) => bs.length);
    check('moves after the move', n1 === a1.moves.length, [n1, a1.moves.length]);
    await page.screenshot({ path: shot, fullPage: true });

    // 3. play a move by clicking its cell on the board (a chooser when several share it)
    const m1 = a1.moves.find((m) => m.cells.length > 0);
    if (m1) {
      const name = a1.board.cells[m1.cells[0]].name;
      const slice = await page.$(`#board g.sub[data-move="${m1.move}"]`);
      if (slice) {
        await slice.click();
      } else {
        await page.click(`#board g.cell[data-cell="${name}"]`);
        const chooser = await page.isVisible('#chooser');
        if (chooser) await page.click(`#chooser button.move[data-move="${m1.move}"]`);
      }
      await page.waitForFunction((p) => document.getElementById('position').value === p, m1.position, T);
      check('cell click plays the move', (await page.inputValue('#position')) === m1.position);
    }

    // 4. back, back: the start again; forward once: after the first move
    await page.click('#back');
    await page.waitForFunction((p) => document.getElementById('position').value === p, m0.position, T);
    if (m1) {
      await page.click('#back');
      await page.waitForFunction((p) => document.getElementById('position').value === p, a0.position, T);
      check('back to the start', (await page.inputValue('#position')) === a0.position);
      await page.click('#forward');
      await page.waitForFunction((p) => document.getElementById('position').value === p, m0.position, T);
      check('forward again', (await page.inputValue('#position')) === m0.position);
    }

    // 5. a shared address opens the same position in a fresh page
    const shared = page.url();
    const p2 = await browser.newPage();
    await p2.goto(shared);
    await p2.waitForSelector('#value', T);
    check('shared address', (await p2.inputValue('#position')) === m0.position);
    await p2.close();

    // 6. the claims panel: every verdict as /api/claims gives it; clicking a witness
    // plays its line on the board
    const cl = await (await fetch(url + 'api/claims?instance=' + encodeURIComponent(spec))).json();
    await page.waitForSelector('#claims .claim', { timeout: 60000 });
    const shown = await page.$$eval('#claims .claim', (ds) => ds.map((d) => ({
      name: d.dataset.claim, verdict: d.querySelector('.verdict').textContent,
      detail: d.querySelector('.claim-detail').textContent,
    })));
    check('claims panel: every claim, verdict and detail', JSON.stringify(shown) ===
      JSON.stringify(cl.claims.map((c) => ({ name: c.name, verdict: c.verdict, detail: c.detail }))), shown);
    const wc = cl.claims.find((c) => c.witness && c.witness.moves.length);
    check('a claim with a witness line', !!wc);
    if (wc) {
      const wmoves = wc.witness.moves.split(' ');
      const aw = await api('instance=' + encodeURIComponent(spec) + '&position=' +
        encodeURIComponent(wc.witness.position) + '&moves=' + wmoves.map(encodeURIComponent).join('+'));
      await page.click(`#claims a.witness[data-claim="${wc.name}"]`);
      await page.waitForFunction((p) => document.getElementById('position').value === p, aw.position, T);
      check('witness click: its end position', (await page.inputValue('#position')) === aw.position);
      const line = await page.$$eval('#line a', (as) => as.slice(1).map((a) => a.textContent));
      check('witness click: its moves in the line', JSON.stringify(line) ===
        JSON.stringify(aw.line.map((l) => l.move)), [line, wmoves]);
      check('witness click: the address', decodeURIComponent(await page.evaluate(() => location.hash))
        .includes('moves=' + wmoves.join(',')));
      await page.screenshot({ path: shot.replace(/\.png$/, '-claims.png'), fullPage: true });
      await page.click('#back');
      await page.waitForFunction((p) => document.getElementById('position').value === p, m0.position, T);
      check('back from the witness', (await page.inputValue('#position')) === m0.position);
    }

    // 7. a position outside the table: drawn, and said plainly
    if (nfSpec) {
      await page.goto(`${url}#instance=${encodeURIComponent(nfSpec)}&position=${encodeURIComponent(nfPos)}`);
      await page.waitForFunction(() => !document.getElementById('banner').hidden, null, T);
      const banner = await page.textContent('#banner');
      check('not in the database, said plainly', /^Not in the database/.test(banner), banner);
      const cells = await page.$$('#board g.cell');
      check('unvalued position still drawn', cells.length > 0);
      check('status says it', (await page.textContent('#status')).includes('not in the database'));
      check('no moves offered', (await page.$$('#moves button.move')).length === 0);
    }
    check('no script errors', errors.length === 0, errors);
  } finally {
    await browser.close();
  }
  console.log(`browser: ${pass} passed, ${fail} failed`);
  process.exit(fail ? 1 : 0);
})().catch((e) => {
  console.log('browser: ' + (e && e.stack ? e.stack : e));
  console.log(`browser: ${pass} passed, ${fail + 1} failed`);
  process.exit(1);
});
