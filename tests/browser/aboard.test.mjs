// The analysis board at /analysis (issue 28 item 1): a pasted PGN's moves
// as a tree with a variation, navigation by keys and clicks, a variation
// entered by moving a piece, the FEN copied (read back through the
// Clipboard API), a bad PGN named by its line, arrows and circles drawn
// with the right mouse button and cleared by a left click, "continue from
// here" filling the lobby's form, a finished game opened from its
// "Analysis board" link (hidden from its players while they play), the
// phone size, and axe-core clean.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, axeSerious, clickMove, invite, join, openPlayer,
    screenshot, twoPlayers, waitText,
} from './lib.mjs';

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const AFTER_E4 = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';

function cell(name) {
    const i = (name.charCodeAt(1) - 49) * 8 + (name.charCodeAt(0) - 97);
    return `#aboard-board [data-sq="${i}"]`;
}

// The SAN of the move shown (the tree's current button), and the FEN.
async function shown(page) {
    return page.evaluate(() => {
        const b = document.querySelector(
            '#aboard-tree [aria-current="true"]');
        return { san: b ? b.getAttribute('aria-label') : null,
                 fen: document.getElementById('aboard-fen').value };
    });
}

async function waitShown(page, san) {
    await page.waitForFunction((want) => {
        const b = document.querySelector(
            '#aboard-tree [aria-current="true"]');
        return want === null ? !b : b && b.getAttribute('aria-label') === want;
    }, san, { timeout: 5000, polling: 50 });
}

// Puts a long text in the box at once (page.fill of thousands of lines
// is slow).
async function paste(page, text) {
    await page.evaluate((t) => {
        document.getElementById('aboard-text').value = t;
    }, text);
}

// The centre of a square of the analysis board, in page pixels.
async function centre(page, name) {
    const b = await page.locator(cell(name)).boundingBox();
    return [b.x + b.width / 2, b.y + b.height / 2];
}

test('the analysis board: tree, keys, variation, FEN, PGN, arrows',
     { timeout: 120000 }, async (t) => {
    const { server, a } = await twoPlayers(t, { b: null });
    const page = a.page;
    await a.ctx.grantPermissions(['clipboard-read', 'clipboard-write'],
                                 { origin: server.base });
    await page.goto(`${server.base}/analysis`);
    await waitText(page, '#aboard-status', /^White to move$/);
    assert.equal(await page.inputValue('#aboard-fen'), START);

    // a PGN with a variation
    await page.fill('#aboard-text',
                    '[White "A"]\n[Black "B"]\n\n' +
                    '1. e4 e5 (1... c5 2. Nf3) 2. Nf3 Nc6 *');
    await page.click('#aboard-open');
    await page.waitForFunction(() => document.querySelectorAll(
        '#aboard-tree .aboard-move').length === 6);
    // the main line, and the variation after the move it replaces
    assert.deepEqual(await page.locator('#aboard-tree > .aboard-move')
        .evaluateAll((bs) => bs.map((b) => b.textContent)),
    ['1. e4', 'e5', '2. Nf3', 'Nc6']);
    assert.deepEqual(await page.locator('#aboard-tree .aboard-var button')
        .evaluateAll((bs) => bs.map((b) => b.textContent)),
    ['1… c5', '2. Nf3']);
    assert.equal(await page.locator('#aboard-tree > *').evaluateAll(
        (es) => es.findIndex((e) => e.className === 'aboard-var')), 2);
    // keys: End, Home, arrows (the focus off the text box)
    await page.locator('#aboard-status').click();
    await page.keyboard.press('End');
    await waitShown(page, '2… Nc6');
    assert.equal(await page.textContent('#aboard-head'), 'A – B');
    await page.keyboard.press('Home');
    await waitShown(page, null);
    assert.equal((await shown(page)).fen, START);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await waitShown(page, '1… e5');
    // a click into the variation, then on along it
    await page.click('#aboard-tree .aboard-var button >> nth=0');
    await waitShown(page, '1… c5');
    await page.keyboard.press('ArrowRight');
    await waitShown(page, '2. Nf3');
    assert.equal((await shown(page)).fen,
                 'rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R ' +
                 'b KQkq - 1 2');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await waitShown(page, '1. e4');
    assert.equal((await shown(page)).fen, AFTER_E4);

    // a move on the board enters a new variation: 1... d5
    await page.waitForSelector(`${cell('d7')}.movable`);
    await page.click(cell('d7'));
    await page.click(cell('d5'));
    await waitShown(page, '1… d5');
    assert.equal(await page.locator('#aboard-tree .aboard-var').count(), 2);
    const d5 = 'rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2';
    assert.equal((await shown(page)).fen, d5);
    // the same move again goes to its node, adding none
    await page.keyboard.press('ArrowLeft');
    await page.waitForSelector(`${cell('d7')}.movable`);
    await page.click(cell('d7'));
    await page.click(cell('d5'));
    await waitShown(page, '1… d5');
    assert.equal(await page.locator('#aboard-tree .aboard-move').count(), 7);

    // made the main line, then deleted: the tree as before it
    assert.ok(await page.isEnabled('#aboard-promote'));
    await page.click('#aboard-promote');
    assert.deepEqual(await page.locator('#aboard-tree > .aboard-move')
        .evaluateAll((bs) => bs.map((b) => b.textContent)), ['1. e4', 'd5']);
    assert.ok(await page.isDisabled('#aboard-promote'));
    await page.click('#aboard-delete');
    await waitShown(page, '1. e4');
    assert.deepEqual(await page.locator('#aboard-tree > .aboard-move')
        .evaluateAll((bs) => bs.map((b) => b.textContent)),
    ['1. e4', 'e5', '2. Nf3', 'Nc6']);
    assert.equal(await page.locator('#aboard-tree .aboard-move').count(), 6);
    await page.click(cell('d7'));
    await page.click(cell('d5'));
    await waitShown(page, '1… d5');

    // the FEN copied
    await page.evaluate(() => navigator.clipboard.writeText(''));
    await page.click('#aboard-copy-fen');
    await waitText(page, '#toasts', /FEN copied/);
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()),
                 d5);

    // continue from here: the lobby's computer form with the FEN
    assert.equal(await page.getAttribute('#aboard-computer', 'href'),
                 `/?with=computer&fen=${encodeURIComponent(d5)}`);

    // arrows: a right-drag e2-e4, a right-click on d4; the same again
    // removes; a left click clears
    const [x1, y1] = await centre(page, 'e2');
    const [x2, y2] = await centre(page, 'e4');
    await page.mouse.move(x1, y1);
    await page.mouse.down({ button: 'right' });
    await page.mouse.move(x2, y2, { steps: 4 });
    await page.mouse.up({ button: 'right' });
    await page.click(cell('d4'), { button: 'right' });
    const arrows = page.locator('#aboard .shapes.user line.arrow');
    const circles = page.locator('#aboard .shapes.user circle');
    assert.equal(await arrows.count(), 1);
    assert.equal(await arrows.getAttribute('data-from'), '12');
    assert.equal(await arrows.getAttribute('data-to'), '28');
    assert.equal(await circles.count(), 1);
    assert.ok(await page.locator('#aboard .shapes.user').isVisible());
    // each position keeps its drawing: gone one move back, back after
    await page.locator('#aboard-status').click();
    await page.keyboard.press('ArrowLeft');
    await waitShown(page, '1. e4');
    assert.equal(await arrows.count(), 0);
    await page.click('#aboard-tree button[aria-label="1… d5"]');
    await waitShown(page, '1… d5');
    assert.equal(await arrows.count(), 1);
    assert.equal(await circles.count(), 1);
    // flipped (f): the board and the arrow turn (e2's centre, x 4.5 of 8,
    // is 3.5 from Black's side)
    assert.equal(await arrows.getAttribute('x1'), '4.5');
    await page.keyboard.press('f');
    await page.waitForSelector('#aboard-board.flipped');
    assert.equal(await arrows.getAttribute('x1'), '3.5');
    await page.click('#aboard-flip');
    await page.waitForSelector('#aboard-board:not(.flipped)');
    await page.click(cell('d4'), { button: 'right' });
    assert.equal(await circles.count(), 0);
    await page.click(cell('a5'));
    assert.equal(await arrows.count(), 0);

    // a bad PGN: its line and problem; the tree stays
    await page.fill('#aboard-text', '1. e4 e5\n2. Ke3 Nc6 *');
    await page.click('#aboard-open');
    await waitText(page, '#aboard-error', /^PGN: Line 2, column 4: .*Ke3/);
    assert.equal((await shown(page)).fen, d5);
    // a PGN over the body's limit with its comments opens without them
    // (their line ends kept: the second line's problem is still line 2)
    await paste(page, `1. e4 {${'x'.repeat(5000)}} e5 *`);
    await page.click('#aboard-open');
    await waitShown(page, null);
    assert.equal(await page.locator('#aboard-tree .aboard-move').count(), 2);
    await paste(page, `1. e4 {${'x\n'.repeat(2500)}} e5\n2. Ke3 *`);
    await page.click('#aboard-open');
    await waitText(page, '#aboard-error', /^PGN: Line 2502, column 4: .*Ke3/);
    // over it without them: the page says so (nothing sent)
    await paste(page, '1. Nf3 Nf6 2. Ng1 Ng8 '.repeat(200));
    await page.click('#aboard-open');
    await waitText(page, '#aboard-error',
                   /^The text has 4399 bytes without its comments .*at most 4096/);
    // a bad FEN
    await page.fill('#aboard-text', '8/8/8/8/8/8/8/8 w - - 0 1');
    await page.click('#aboard-open');
    await waitText(page, '#aboard-error', /^FEN: Not a FEN: /);
    // a good FEN
    await page.fill('#aboard-text', '4k3/8/8/8/8/8/8/4K2R w K - 0 1');
    await page.click('#aboard-open');
    await waitText(page, '#aboard-tree', /Make a move on the board/);
    assert.equal(await page.textContent('#aboard-error'), '');
    assert.deepEqual(await axeSerious(page), [], 'analysis board');
    await screenshot(page, 'aboard.png');
    // the browser logs each 400 it was answered: the bad PGNs' and FEN's
    const refused = a.problems.filter((p) => /status of 400/.test(p));
    assert.equal(refused.length, 3, a.problems.join('\n'));
    a.problems = a.problems.filter((p) => !refused.includes(p));
    // continue from here with a friend: the lobby's invitation form, the
    // FEN filled in
    await page.click('#aboard-friend');
    await waitText(page, '#seek-btn', /^Create the invitation$/);
    assert.equal(await page.inputValue('#fen'),
                 '4k3/8/8/8/8/8/8/4K2R w K - 0 1');
    assert.ok(await page.locator('#fen').isVisible());
    assertClean(t, a);
});

test('a finished game opens on the board; the phone size',
     { timeout: 120000 }, async (t) => {
    const { server, browser, a, b } = await twoPlayers(t);
    const link = await invite(a.page, { preset: '3-0', color: 'white' });
    await join(b.page, link);
    const gid = link.split('/g/')[1];
    // not for the players while they play
    await clickMove(a.page, 'f2f3');
    assert.ok(await a.page.locator('#analysis-link').isHidden());
    assert.ok(await b.page.locator('#analysis-link').isHidden());
    // a spectator has it while they play
    const c = await openPlayer(browser, link);
    await waitText(c.page, '#analysis-link', /^Analysis board$/);
    assert.equal(await c.page.getAttribute('#analysis-link', 'href'),
                 `/analysis?game=${gid}`);
    await c.ctx.close();
    for (const [p, m] of [[b, 'e7e5'], [a, 'g2g4'], [b, 'd8h4']])
        await clickMove(p.page, m);
    await waitText(a.page, '#end-title', /^You lost$/);
    assert.equal(await a.page.getAttribute('#analysis-link', 'href'),
                 `/analysis?game=${gid}`);
    await a.page.click('#analysis-link');
    await waitText(a.page, '#aboard-tree', /2\. g4 ?Qh4#$/);
    await a.page.locator('#aboard-status').click();
    await a.page.keyboard.press('End');
    await waitText(a.page, '#aboard-status', /^Checkmate: Black wins$/);
    await waitText(a.page, '#aboard-head', /^Guest-\S+ – Guest-\S+, 0-1$/);

    // a phone: the board and the moves fit the width; axe clean
    const phone = await openPlayer(browser,
                                   `${server.base}/analysis?game=${gid}`,
                                   { phone: true });
    await waitText(phone.page, '#aboard-tree', /2\. g4 ?Qh4#$/);
    const width = phone.page.viewportSize().width;
    for (const id of ['#aboard-board', '#aboard-tree', '#aboard-text']) {
        const box = await phone.page.locator(id).boundingBox();
        assert.ok(box.x >= 0 && box.x + box.width <= width + 1,
                  `${id} fits: ${JSON.stringify(box)}`);
    }
    assert.deepEqual(await axeSerious(phone.page), [], 'phone');
    await screenshot(phone.page, 'aboard-phone.png');
    assertClean(t, a, b, phone);
});
