// The game page as a lichess regular plays it (issue 29), one game from
// its invitation to its end, a desktop (A, White) against a phone (B),
// watched by C: the skip link to the board, moves typed on the keyboard
// (SAN and UCI), f to flip, z for zen mode, the watcher count and draw
// offers told to spectators, a premove replaced in one go, the notes of
// dropped premoves beside the clocks and names (never over them), and
// the end: its score, the move list scrolled to the last move also with
// a rematch offer, the phone's Rematch in view. Screenshots of the page
// (desktop, phone, dark) land in the screenshots folder.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, axeSerious, clickMove, confirm, invite, join, openPlayer,
    premove, sanList, screenshot, sq, twoPlayers, waitText,
} from './lib.mjs';

const rect = (page, sel) => page.evaluate((s) => {
    const el = document.querySelector(s);
    const r = el.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
}, sel);

const overlap = (a, b) => a.left < b.right && b.left < a.right &&
    a.top < b.bottom && b.top < a.bottom;

// Fails when the toast shown lies over a clock or a name of either bar.
async function toastCoversNothing(page, what) {
    await page.locator('.toast').first().waitFor();
    const toast = await rect(page, '.toast');
    for (const sel of ['#bar-top .clock', '#bar-top .pname',
                       '#bar-bottom .clock', '#bar-bottom .pname']) {
        const r = await rect(page, sel);
        assert.ok(!overlap(toast, r), `${what}: the toast ${
            JSON.stringify(toast)} covers ${sel} ${JSON.stringify(r)}`);
    }
}

// Types a move in the keyboard field and waits for it in the list.
async function typeMove(page, text, san) {
    await page.fill('#keymove-input', text);
    await waitText(page, '#moves', new RegExp(`${san}$`));
    assert.equal(await page.inputValue('#keymove-input'), '');
}

const firstCell = (page) => page.locator('#board .row').first()
    .locator('.sq').first().getAttribute('aria-label');

// Whether the move list shows its entry `ply` whole, two frames after
// something took its room (it scrolls within one).
const moveInView = (page, ply) => page.evaluate((n) => new Promise((ok) => {
    requestAnimationFrame(() => requestAnimationFrame(() => {
        const list = document.getElementById('moves')
            .getBoundingClientRect();
        const m = document.querySelector(`#moves button[data-ply="${n}"]`)
            .getBoundingClientRect();
        ok(m.top >= list.top - 1 && m.bottom <= list.bottom + 1 &&
           m.left >= list.left - 1 && m.right <= list.right + 1);
    }));
}), ply);

test('the game page: skip link, typed moves, keys, spectators, premoves ' +
     'replaced, toasts beside the clocks, the end in view',
{ timeout: 180000 }, async (t) => {
    const { browser, a, b } = await twoPlayers(t, { b: { phone: true } });
    const link = await invite(a.page, { preset: '5-3', color: 'white' });
    await join(b.page, link);
    const pa = a.page, pb = b.page;

    // The skip link: arriving at the page, Tab, Enter, and the board has
    // the keyboard.
    await pa.reload();
    await pa.locator(`${sq('e2')}.movable`).waitFor();
    await pa.keyboard.press('Tab');
    assert.equal(await pa.evaluate(() => document.activeElement.id),
                 'skip-link');
    await pa.keyboard.press('Enter');
    assert.equal(await pa.evaluate(() => !!document.activeElement
        .closest('#board')), true, 'the skip link leads to the board');

    // f flips the board and back.
    assert.match(await firstCell(pa), /^a8, /);
    await pa.keyboard.press('f');
    assert.match(await firstCell(pa), /^h1, /);
    await pa.keyboard.press('f');
    assert.match(await firstCell(pa), /^a8, /);

    // Moves typed: SAN for a pawn and a piece, UCI.
    await typeMove(pa, 'e4', 'e4');
    await clickMove(pb, 'e7e5');
    await typeMove(pa, 'Nf3', 'Nf3');

    // A spectator: counted on every page; told of a draw offer.
    const c = await openPlayer(browser, link);
    await waitText(c.page, '#status', /^You are watching\. Black to move$/);
    await waitText(pa, '#watchers', /^1 spectator$/);
    await waitText(c.page, '#watchers', /^1 spectator$/);
    await clickMove(pb, 'b8c6');
    await pa.click('#draw-btn');
    await waitText(c.page, '#offer-text', /^White offers a draw\.$/);
    assert.ok(await c.page.locator('#accept-draw-btn').isHidden());
    await c.page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(c.page, 'playpage-dark.png');
    assert.deepEqual(await axeSerious(c.page), [], 'spectator, offer');
    await pb.click('#decline-draw-btn');
    await c.page.locator('#offer-panel').waitFor({ state: 'hidden' });

    await typeMove(pa, 'f1c4', 'Bc4');
    // A queues d2-d3, then replaces it with Nb1-c3 in one go.
    await premove(pa, 'd2d3');
    await pa.click(sq('b1'));
    await pa.click(sq('c3'));
    await waitText(pa, '#status', /^Premove b1-c3 queued/);
    assert.equal(await pa.locator('#board .sq.premove').count(), 2);
    await clickMove(pb, 'g8f6');
    await waitText(pb, '#moves', /Nc3$/);

    // B (phone) premoves Bc5; Bxf7+ drops it, in a note beside the bars.
    await clickMove(pb, 'h7h6');
    await premove(pb, 'f8c5');
    await clickMove(pa, 'c4f7');
    await waitText(pb, '.toast', /Premove f8-c5 is not legal now: dropped/);
    await toastCoversNothing(pb, 'phone');
    await screenshot(pb, 'playpage-phone.png');
    // A premoves the bishop back; Kxf7 drops it, beside the bars too.
    await premove(pa, 'f7e6');
    await clickMove(pb, 'e8f7');
    await waitText(pa, '.toast', /Premove f7-e6 is not legal now: dropped/);
    await toastCoversNothing(pa, 'desktop');
    await screenshot(pa, 'playpage-desktop.png');
    assert.deepEqual(await axeSerious(pa), [], 'player, desktop');

    // Zen mode (z, away from the move field): no top bar nor names while
    // playing; z again.
    await pa.click('#status');
    await pa.keyboard.press('z');
    await pa.locator('.topbar').waitFor({ state: 'hidden' });
    assert.ok(!await pa.locator('#bar-top .pname').isVisible());
    assert.ok(await pa.locator('#bar-top .clock').isVisible());
    await pa.keyboard.press('z');
    await pa.locator('.topbar').waitFor();

    // B offers a rematch... after A resigns: the end panel, its score,
    // and the list scrolled to the last of the 10 moves on both pages
    // (the notes dismissed: only the end takes the list's room).
    // (a toast may expire while it is clicked: the next one, then)
    for (const p of [pa, pb])
        for (let i = 0; i < 8 && await p.locator('.toast-close').count(); i++)
            await p.locator('.toast-close').first().click({ timeout: 2000 })
                .catch(() => {});
    await pa.click('#resign-btn');
    await confirm(pa, true);
    for (const p of [pa, pb, c.page]) {
        await waitText(p, '#end-score', /^0-1$/);
        await waitText(p, '#moves .moves-result', /^0-1$/);
    }
    assert.deepEqual(await sanList(pa), ['e4', 'e5', 'Nf3', 'Nc6', 'Bc4',
                                         'Nf6', 'Nc3', 'h6', 'Bxf7+',
                                         'Kxf7']);
    // (a laptop's window: the end panel leaves the list a few rows)
    await pa.setViewportSize({ width: 1280, height: 640 });
    await pb.click('#rematch-btn');
    await waitText(pa, '#rematch-note', /Your opponent offers a rematch/);
    for (const [p, size] of [[pa, 'desktop'], [pb, 'phone']])
        assert.ok(await moveInView(p, 10), `${size}: Kxf7 out of view`);
    // the phone's rematch in view without scrolling
    await pa.evaluate(() => window.scrollTo(0, 0));
    await pb.evaluate(() => window.scrollTo(0, 0));
    const h = pb.viewportSize().height;
    const withdraw = await rect(pb, '#rematch-withdraw-btn');
    assert.ok(withdraw.bottom <= h, `the phone's rematch ends at ${
        withdraw.bottom} px, below its ${h} px`);
    const accept = await rect(pa, '#rematch-accept-btn');
    assert.ok(accept.bottom <= pa.viewportSize().height);
    await screenshot(pa, 'playpage-end-desktop.png');
    await screenshot(pb, 'playpage-end-phone.png');
    assert.deepEqual(await axeSerious(pb), [], 'end, phone');
    assertClean(t, a, b, c);
});
