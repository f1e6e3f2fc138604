// Settings (web/settings.js): the dialog from the header, used with the
// keyboard; every setting applied at once (computed styles, classes,
// attributes, behaviour) and kept across a reload; the "system" theme
// follows prefers-color-scheme; an account's settings follow it to a fresh
// browser (stored on the server) and to its other browsers at once.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, clickMove, invite, join, logWebSocket, openPlayer, pieceOn,
    sq, twoPlayers, waitText, wsMessages,
} from './lib.mjs';

const bg = (page, sel) => page.$eval(sel, (el) =>
    getComputedStyle(el).backgroundColor);
const display = (page, sel, pseudo) => page.$eval(sel, (el, p) =>
    getComputedStyle(el, p).display, pseudo || null);
const theme = (page) => page.getAttribute('html', 'data-theme');
// The media query's change event comes a moment after emulateMedia.
async function waitTheme(page, want) {
    await page.waitForFunction((w) =>
        document.documentElement.dataset.theme === w, want,
    { timeout: 5000, polling: 50 }).catch(() => {});
    assert.equal(await theme(page), want);
}
const saved = (page) => page.evaluate(() =>
    JSON.parse(localStorage.getItem('chess.settings')));

async function openSettings(page) {
    await page.focus('#settings-btn');
    await page.keyboard.press('Enter');
    await page.locator('#settings-dialog[open]').waitFor();
}

test('theme: system follows prefers-color-scheme; dark and light kept',
     { timeout: 60000 }, async (t) => {
    const { a } = await twoPlayers(t, { b: null });
    const p = a.page;
    const DARK_BG = 'rgb(38, 36, 33)';
    const LIGHT_BG = 'rgb(244, 241, 236)';
    // Nothing saved: "system".
    await p.emulateMedia({ colorScheme: 'light' });
    await waitTheme(p, 'light');
    assert.equal(await bg(p, 'body'), LIGHT_BG);
    await p.emulateMedia({ colorScheme: 'dark' });
    await waitTheme(p, 'dark');
    assert.equal(await bg(p, 'body'), DARK_BG);

    // The dialog with the keyboard: the theme radios by arrow keys.
    await openSettings(p);
    assert.ok(await p.isChecked('#settings-form input[name="theme"]' +
                                '[value="system"]'));
    await p.focus('#settings-form input[name="theme"][value="system"]');
    await p.keyboard.press('ArrowDown');     // dark
    await p.keyboard.press('ArrowDown');     // light
    assert.equal(await theme(p), 'light', 'applied at once');
    assert.equal(await bg(p, 'body'), LIGHT_BG);
    await p.keyboard.press('Escape');
    await p.locator('#settings-dialog').waitFor({ state: 'hidden' });
    assert.equal(await p.evaluate(() => document.activeElement.id),
                 'settings-btn', 'focus back on the button');
    // A chosen theme wins over the system's, also after a reload.
    await p.reload();
    await waitText(p, '#conn-text', /^Online$/);
    assert.equal(await theme(p), 'light');
    assert.equal(await bg(p, 'body'), LIGHT_BG);

    await openSettings(p);
    await p.check('#settings-form input[name="theme"][value="dark"]');
    await p.emulateMedia({ colorScheme: 'light' });
    await p.waitForFunction(() =>
        matchMedia('(prefers-color-scheme: light)').matches);
    assert.equal(await theme(p), 'dark');
    await p.check('#settings-form input[name="theme"][value="system"]');
    await waitTheme(p, 'light');
    assert.equal((await saved(p)).theme, 'system');
    assertClean(t, a);
});

test('board colours, hints, coordinates, sound, auto-queen, premoves, ' +
     'confirmation: applied and kept across a reload',
     { timeout: 90000 }, async (t) => {
    const { a, b } = await twoPlayers(t);
    const p = a.page;
    // Defaults.
    assert.equal(await bg(p, `${sq('a1')}`), 'rgb(181, 136, 99)');
    assert.notEqual(await display(p, '#board .coord'), 'none');
    assert.equal(await p.getAttribute('#sound-toggle', 'aria-pressed'),
                 'false');
    const getters = () => p.evaluate(async () => {
        const m = await import('/settings.js');
        return { premoves: m.premoveCount(), confirm: m.confirmMoves(),
                 queen: m.autoQueen(), sound: m.soundOn(),
                 volume: m.volume(), slide: m.animationMs() };
    });
    assert.deepEqual(await getters(),
                     { premoves: 1, confirm: false, queen: false,
                       sound: true, volume: 0.7, slide: 160 });
    const boardPx = () => p.$eval('.board-wrap', (e) =>
        e.getBoundingClientRect().width);

    await openSettings(p);
    const f = '#settings-form';
    await p.check(`${f} input[name="board"][value="blue"]`);
    assert.equal(await bg(p, sq('a1')), 'rgb(140, 162, 173)');
    assert.equal(await bg(p, sq('b1')), 'rgb(222, 227, 230)');
    await p.uncheck(`${f} input[name="coords"]`);
    assert.equal(await display(p, '#board .coord'), 'none');
    await p.uncheck(`${f} input[name="hints"]`);
    assert.ok(await p.$eval('html', (h) => h.classList.contains('no-hints')));
    await p.uncheck(`${f} input[name="sound"]`);
    assert.equal(await p.getAttribute('#sound-toggle', 'aria-pressed'),
                 'true', 'the quick switch follows');
    await p.check(`${f} input[name="autoQueen"]`);
    await p.check(`${f} input[name="confirmMoves"]`);
    await p.fill(`${f} input[name="premoves"]`, '3');
    await p.press(`${f} input[name="premoves"]`, 'Tab');
    // issue 29: the volume, how fast pieces move, the board's size, zen
    await p.fill(`${f} input[name="volume"]`, '35');
    await p.selectOption(`${f} select[name="animation"]`, 'slow');
    await p.fill(`${f} input[name="boardSize"]`, '80');
    await p.check(`${f} input[name="zen"]`);
    await p.check(`${f} input[name="board"][value="purple"]`);
    assert.equal(await bg(p, sq('a1')), 'rgb(159, 134, 184)');
    await p.check(`${f} input[name="board"][value="blue"]`);
    assert.deepEqual(await getters(),
                     { premoves: 3, confirm: true, queen: true,
                       sound: false, volume: 0.35, slide: 300 });
    assert.equal(await p.getAttribute('html', 'data-board-size'), '80');
    assert.ok(await p.$eval('html', (h) => h.classList.contains('zen')));
    await p.click('#settings-close');
    await p.locator('#settings-dialog').waitFor({ state: 'hidden' });

    // All kept across a reload.
    await p.reload();
    await waitText(p, '#conn-text', /^Online$/);
    assert.equal(await p.getAttribute('html', 'data-board'), 'blue');
    assert.equal(await bg(p, sq('a1')), 'rgb(140, 162, 173)');
    assert.equal(await display(p, '#board .coord'), 'none');
    assert.equal(await p.getAttribute('#sound-toggle', 'aria-pressed'),
                 'true');
    assert.deepEqual(await getters(),
                     { premoves: 3, confirm: true, queen: true,
                       sound: false, volume: 0.35, slide: 300 });
    assert.equal(await p.getAttribute('html', 'data-board-size'), '80');
    await openSettings(p);
    // zen off again (it hides the names while playing)
    await p.uncheck(`${f} input[name="zen"]`);
    assert.ok(await p.isChecked(`${f} input[name="board"][value="blue"]`));
    assert.ok(!await p.isChecked(`${f} input[name="coords"]`));
    assert.ok(!await p.isChecked(`${f} input[name="hints"]`));
    assert.ok(!await p.isChecked(`${f} input[name="sound"]`));
    assert.ok(await p.isChecked(`${f} input[name="autoQueen"]`));
    assert.ok(await p.isChecked(`${f} input[name="confirmMoves"]`));
    assert.equal(await p.inputValue(`${f} input[name="premoves"]`), '3');
    await p.keyboard.press('Escape');

    // In a game: no hint dots on A's board until hints are on again; A's
    // pawn becomes a queen without the picker.
    const link = await invite(p, { color: 'white',
                                   fen: '8/P6k/8/8/8/8/8/K7 w - - 0 1' });
    await join(b.page, link);
    await p.locator(`${sq('a7')}.movable`).waitFor();
    await p.click(sq('a7'));
    await p.locator(`${sq('a8')}.dest`).waitFor();
    assert.equal(await display(p, sq('a8'), '::after'), 'none');
    // the board at 80% of its room, then all of it
    const small = await boardPx();
    await openSettings(p);
    await p.fill(`${f} input[name="boardSize"]`, '100');
    const full = await boardPx();
    assert.ok(Math.abs(small - 0.8 * full) < 2, `board ${small} px at 80%, ${
        full} px at 100%`);
    await p.check(`${f} input[name="hints"]`);
    assert.notEqual(await display(p, sq('a8'), '::after'), 'none');
    await p.keyboard.press('Escape');
    await p.locator('#settings-dialog').waitFor({ state: 'hidden' });
    await p.click(sq('a7'));   // unselect
    await clickMove(p, 'a7a8');
    assert.equal(await p.locator('.promo:not([hidden])').count(), 0);
    await waitText(p, '#moves', /a8=Q/);
    assert.equal(await pieceOn(p, 'a8'), 'white queen');
    assert.equal(await pieceOn(b.page, 'a8'), 'white queen');
    assertClean(t, a, b);
});

test('move confirmation in a per-move game', { timeout: 60000 },
     async (t) => {
    const { a, b } = await twoPlayers(t);
    const p = a.page;
    await openSettings(p);
    await p.check('#settings-form input[name="confirmMoves"]');
    await p.keyboard.press('Escape');
    await p.click('label[for="tc-custom"]');
    await p.check('input[name="kind"][value="per_move"]');
    await p.fill('#c-permove', '60');
    await waitText(p, '#custom-summary', /^1 min per move$/);
    const link = await invite(p, { preset: 'custom', color: 'white' });
    await join(b.page, link);
    await p.locator(`${sq('e2')}.movable`).waitFor();
    await p.click(sq('e2'));
    await p.click(sq('e4'));
    await waitText(p, '#confirm-text', /^Play e2-e4\?$/);
    await p.click('#confirm-no');
    assert.equal(await pieceOn(p, 'e2'), 'white pawn', 'taken back');
    assert.equal(await p.locator('#moves button.move').count(), 0);
    await p.click(sq('e2'));
    await p.click(sq('e4'));
    await waitText(p, '#confirm-text', /^Play e2-e4\?$/);
    await p.click('#confirm-yes');
    await waitText(b.page, '#moves', /e4/);
    // B (confirmation off, the default) moves without a question.
    await clickMove(b.page, 'e7e5');
    assert.ok(await b.page.locator('#confirm[open]').count() === 0);
    assertClean(t, a, b);
});

// Signs up or logs in (the header's menu) and waits for the account.
async function accountIn(page, mode, username) {
    await page.click('#menu-btn');
    await page.click(mode === 'signup' ? '#menu-signup' : '#menu-login');
    await page.locator('#account-dialog[open]').waitFor();
    await page.fill('#account-user', username);
    await page.fill('#account-pass', 'correct horse');
    await page.click('#account-ok');
    await waitText(page, '#me-kind', /^account$/);
    await waitText(page, '#me', new RegExp(`^${username}$`));
    await page.locator('#account-dialog[open]').waitFor({ state: 'hidden' });
}

const board = (page) => page.getAttribute('html', 'data-board');
const noHints = (page) => page.$eval('html', (h) =>
    h.classList.contains('no-hints'));
async function waitBoard(page, want) {
    await page.waitForFunction((w) =>
        document.documentElement.dataset.board === w, want,
    { timeout: 15000, polling: 50 }).catch(() => {});
    assert.equal(await board(page), want);
}

test("an account's settings: on the server, applied in a fresh browser " +
     'at login and in its other browsers at once; a guest keeps its own',
     { timeout: 90000 }, async (t) => {
    const { a, browser, server } = await twoPlayers(t, {
        b: null, a: { beforeGoto: logWebSocket } });
    const p = a.page;
    // Where they are kept, in words: a guest's in this browser...
    await openSettings(p);
    await waitText(p, '#settings-where', /^Kept in this browser, applied at once\. Sign up or log in/);
    await p.keyboard.press('Escape');
    await accountIn(p, 'signup', 'sett_1');
    // A guest's choice before signing up goes with the new account (it
    // had none stored); then a change made while logged in.
    await openSettings(p);
    // ... an account's with it (issue 29: it said "not with your account
    // yet")
    await waitText(p, '#settings-where', /^Saved with your account: they follow you to every device/);
    await p.check('#settings-form input[name="board"][value="green"]');
    await p.uncheck('#settings-form input[name="hints"]');
    await p.keyboard.press('Escape');
    assert.equal(await board(p), 'green');
    // Sent once after the last change (the first save, at sign-up, sent
    // the guest's settings): wait for the server's answer to it.
    await p.waitForFunction(() => {
        const out = window.wsLog.filter((e) =>
            e.dir === 'out' && e.msg.t === 'settings');
        const last = out[out.length - 1];
        return last && last.msg.settings.board === 'green' &&
            window.wsLog.some((e) => e.dir === 'in' &&
                              e.msg.t === 'settings_saved' &&
                              e.msg.id === last.msg.id);
    }, null, { timeout: 15000, polling: 50 });
    const sent = await wsMessages(p, 'out', 'settings');
    assert.equal(sent.length, 2, 'one save at sign-up, one after the changes');
    assert.equal(sent[0].msg.settings.board, 'brown');
    assert.equal(sent[1].msg.settings.hints, false);

    // A fresh browser (nothing in its localStorage): the defaults as a
    // guest, the account's settings once logged in.
    const c = await openPlayer(browser, `${server.base}/`);
    assert.equal(await c.page.evaluate(() =>
        localStorage.getItem('chess.settings')), null);
    assert.equal(await board(c.page), 'brown');
    assert.equal(await noHints(c.page), false);
    await accountIn(c.page, 'login', 'sett_1');
    await waitBoard(c.page, 'green');
    assert.equal(await noHints(c.page), true);
    assert.equal(JSON.parse(await c.page.evaluate(() =>
        localStorage.getItem('chess.settings'))).board, 'green');
    // The form shows them too.
    await openSettings(c.page);
    assert.ok(await c.page.isChecked(
        '#settings-form input[name="board"][value="green"]'));
    // A change there reaches the first browser without a reload, the
    // settings issue 29 added with it (the server takes their keys).
    await c.page.check('#settings-form input[name="board"][value="blue"]');
    await c.page.fill('#settings-form input[name="volume"]', '20');
    await c.page.selectOption('#settings-form select[name="animation"]',
                              'none');
    await c.page.keyboard.press('Escape');
    await waitBoard(p, 'blue');
    assert.equal(await noHints(p), true);
    await p.waitForFunction(async () => {
        const m = await import('/settings.js');
        return m.volume() === 0.2 && m.animationMs() === 0;
    }, null, { timeout: 10000, polling: 100 });

    // Another fresh browser stays a guest with its own settings.
    const g = await openPlayer(browser, `${server.base}/`);
    assert.equal(await board(g.page), 'brown');
    assertClean(t, a, c, g);
});
