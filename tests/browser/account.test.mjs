// Accounts in the browser (PROTOCOL.md section 4, Accounts): a guest with a
// finished game signs up and finds the game on its page; logging out
// starts a new guest and logging in (here and in another browser) comes
// back to the account, and a second tab follows each change; "log out
// everywhere" logs out the other browsers, and one that comes back later
// is told its login ended and offered to log in again; every refusal of a
// sign-up or login shows its words in the dialog.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, clickMove, confirm, invite, join, myName, openPlayer,
    screenshot, serverAndBrowser, sleep, text, twoPlayers, waitText,
} from './lib.mjs';

const token = (page) => page.evaluate(() =>
    localStorage.getItem('chess.token'));

async function openMenu(page) {
    await page.click('#menu-btn');
    await page.locator('#account-menu').waitFor();
}

// Opens the dialog (sign up or log in, from the header's menu), fills it
// in and submits it; does not wait for the answer.
async function submitAccount(page, mode, username, password) {
    await openMenu(page);
    await page.click(mode === 'signup' ? '#menu-signup' : '#menu-login');
    await page.locator('#account-dialog[open]').waitFor();
    await waitText(page, '#account-title', mode === 'signup' ? /^Sign up$/
        : /^Log in$/);
    await page.fill('#account-user', username);
    await page.fill('#account-pass', password);
    await page.click('#account-ok');
}

// Waits until the header shows `name` as an account, the dialog closed.
async function waitAccount(page, name) {
    await waitText(page, '#me-kind', /^account$/);
    await waitText(page, '#me', new RegExp(`^${name}$`));
    await page.locator('#account-dialog[open]').waitFor({ state: 'hidden' });
}

// Waits until the header shows a guest named otherwise than `notName`.
async function waitGuest(page, notName) {
    await waitText(page, '#me-kind', /^guest$/);
    await page.waitForFunction((n) => {
        const t = document.getElementById('me').textContent;
        return t && t !== n;
    }, notName, { polling: 50, timeout: 15000 });
}

// The dialog's inline error after a refused request.
async function waitError(page, re) {
    await waitText(page, '#account-error', re);
    assert.equal(await page.getAttribute('#account-error', 'role'), 'alert');
    assert.ok(await page.locator('#account-dialog[open]').isVisible(),
              'the dialog stays open');
    assert.ok(await page.locator('#account-ok').isEnabled(),
              'the person may try again');
}

test('a guest with a finished game signs up and keeps the game',
     { timeout: 120000 }, async (t) => {
    const { a, b, server } = await twoPlayers(t);
    const guestName = await myName(a.page);
    const nameB = await myName(b.page);
    assert.equal(await text(a.page, '#me-kind'), 'guest');
    assert.match(await text(a.page, '#identity-text'),
                 new RegExp(`^You play as ${guestName}, a guest\\.$`));
    const link = await invite(a.page, { preset: '5-3', color: 'white' });
    await join(b.page, link);
    const gid = new URL(a.page.url()).pathname.split('/')[2];
    await clickMove(a.page, 'e2e4');
    await clickMove(b.page, 'e7e5');
    await b.page.click('#resign-btn');
    await confirm(b.page, true);
    await waitText(a.page, '#end-title', /^You won$/);
    const guestToken = await token(a.page);

    // The dialog: the rules shown, a password field a password manager
    // fills in as a new password.
    await openMenu(a.page);
    await a.page.click('#menu-signup');
    await a.page.locator('#account-dialog[open]').waitFor();
    assert.equal(await a.page.getAttribute('#account-user', 'autocomplete'),
                 'username');
    assert.equal(await a.page.getAttribute('#account-pass', 'type'),
                 'password');
    assert.equal(await a.page.getAttribute('#account-pass', 'autocomplete'),
                 'new-password');
    assert.match(await text(a.page, '#account-user-rules'),
                 /2 to 20 letters, digits, _ or -/);
    assert.match(await text(a.page, '#account-pass-rules'),
                 /At least 8 characters/);
    assert.equal(await a.page.evaluate(() => document.activeElement.id),
                 'account-user', 'the username field has the focus');
    await a.page.fill('#account-user', 'Alice_1');
    await a.page.fill('#account-pass', 'correct horse');
    await screenshot(a.page, 'signup-desktop.png');
    await a.page.keyboard.press('Enter');
    await waitAccount(a.page, 'Alice_1');
    assert.equal(await text(a.page, '#identity-text'),
                 'You are logged in as Alice_1.');
    const accountToken = await token(a.page);
    assert.ok(accountToken && accountToken !== guestToken,
              'the account\'s token replaced the guest\'s');

    // My games: the game played as a guest is there.
    await openMenu(a.page);
    await a.page.click('#menu-mygames');
    await a.page.waitForURL(/\/p\/[A-Za-z0-9_-]+$/);
    await waitText(a.page, '#player-title', /^Your games$/);
    const item = a.page.locator(`#player-games li[data-game="${gid}"]`);
    await item.waitFor();
    assert.equal(await a.page.locator('#player-games li').count(), 1);
    assert.equal(await item.locator('.hres').textContent(), 'Won');
    assert.equal(await item.locator('.hopp').textContent(), nameB);
    assert.equal(await item.locator('a.hgame-open').getAttribute('href'),
                 `/g/${gid}`);
    const pgn = await item.locator('a.hgame-pgn').getAttribute('href');
    assert.equal(pgn, `/api/games/${gid}/pgn`);
    const r = await fetch(server.base + pgn);
    assert.equal(r.status, 200);
    assert.match(await r.text(), /\[Result "1-0"\]/);

    // A reload comes back as the account: the saved token is the new one.
    await a.page.reload();
    await waitText(a.page, '#conn-text', /^Online$/);
    await waitAccount(a.page, 'Alice_1');
    await waitText(a.page, '#player-title', /^Your games$/);
    assert.equal(await a.page.locator('#player-games li').count(), 1);
    assertClean(t, a, b);
});

test('log out, log in again, and log in on another browser',
     { timeout: 120000 }, async (t) => {
    const { a, browser, server } = await twoPlayers(t, { b: null });
    // A second tab of the same browser follows every change of identity.
    const tab = await openPlayer(browser, a.page.url(), { ctx: a.ctx });
    assert.equal(await myName(tab.page), await myName(a.page));
    await submitAccount(a.page, 'signup', 'bob_2', 'secret password');
    await waitAccount(a.page, 'bob_2');
    await waitAccount(tab.page, 'bob_2');
    const accountToken = await token(a.page);

    // Log out from the lobby: a new guest, with the way back offered.
    await a.page.click('#logout-btn');
    await waitGuest(a.page, 'bob_2');
    await waitText(a.page, '#toasts',
                   /You are logged out\. You play on as a new guest\./);
    const guestToken = await token(a.page);
    assert.ok(guestToken && guestToken !== accountToken);
    assert.ok(await a.page.locator('#login-btn').isVisible());
    assert.ok(await a.page.locator('#signup-btn').isVisible());
    assert.ok(await a.page.locator('#logout-btn').isHidden());
    await waitGuest(tab.page, 'bob_2');
    await waitText(tab.page, '#me', new RegExp(`^${await myName(a.page)}$`));

    // A guest looking for a game logs in: the guest's seek ends with it
    // (not renewed for the account).
    await a.page.click('#seek-btn');
    await waitText(a.page, '#seeking', /Looking for an opponent/);

    // Log in with the keyboard, from the header's menu.
    await a.page.focus('#menu-btn');
    await a.page.keyboard.press('Enter');
    await a.page.locator('#account-menu').waitFor();
    assert.equal(await a.page.getAttribute('#menu-btn', 'aria-expanded'),
                 'true');
    await a.page.keyboard.press('Escape');
    await a.page.locator('#account-menu').waitFor({ state: 'hidden' });
    assert.equal(await a.page.evaluate(() => document.activeElement.id),
                 'menu-btn', 'Escape gives the focus back to the button');
    await a.page.keyboard.press('Enter');
    for (let i = 0; i < 3; i++)
        await a.page.keyboard.press('Tab');
    assert.equal(await a.page.evaluate(() => document.activeElement.id),
                 'menu-login');
    await a.page.keyboard.press('Enter');
    await a.page.locator('#account-dialog[open]').waitFor();
    assert.equal(await a.page.getAttribute('#account-pass', 'autocomplete'),
                 'current-password');
    assert.ok(await a.page.locator('#account-user-rules').isHidden());
    await a.page.keyboard.type('bob_2');
    await a.page.keyboard.press('Tab');
    await a.page.keyboard.type('secret password');
    await a.page.keyboard.press('Enter');
    await waitAccount(a.page, 'bob_2');
    await waitText(a.page, '#toasts', /You are logged in as bob_2\./);
    await waitAccount(tab.page, 'bob_2');
    assert.ok(await a.page.locator('#seeking').isHidden());
    const metrics = await (await fetch(`${server.base}/metrics`)).text();
    assert.match(metrics, /^chess_open_seeks 0$/m);
    const loginToken = await token(a.page);
    assert.ok(loginToken && loginToken !== guestToken &&
              loginToken !== accountToken, 'a login gives a new token');

    // Another browser (its own storage), at phone size.
    const c = await openPlayer(browser, a.page.url(), { phone: true });
    const cGuest = await myName(c.page);
    assert.notEqual(cGuest, 'bob_2');
    await submitAccount(c.page, 'login', 'BOB_2', 'secret password');
    await waitAccount(c.page, 'bob_2');
    await c.page.reload();
    await waitText(c.page, '#conn-text', /^Online$/);
    await waitAccount(c.page, 'bob_2');
    await openMenu(c.page);
    const overflow = await c.page.evaluate(() =>
        document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no sideways scrolling at phone width (${
        overflow} px)`);
    await screenshot(c.page, 'account-menu-phone.png');
    assertClean(t, a, tab, c);
});

test('log out everywhere logs out the other browser',
     { timeout: 120000 }, async (t) => {
    const { a, b, browser, server } = await twoPlayers(t);
    await submitAccount(a.page, 'signup', 'carol_3', 'password three');
    await waitAccount(a.page, 'carol_3');
    await submitAccount(b.page, 'login', 'carol_3', 'password three');
    await waitAccount(b.page, 'carol_3');
    // A third browser logged in, its page closed meanwhile.
    const e = await openPlayer(browser, `${server.base}/`);
    await submitAccount(e.page, 'login', 'carol_3', 'password three');
    await waitAccount(e.page, 'carol_3');
    await e.page.close();
    // A's browser has a second tab: both are logged out at once and must
    // settle on one new guest (not follow each other's token back and
    // forth).
    const tab = await openPlayer(browser, `${server.base}/`, { ctx: a.ctx });
    await waitAccount(tab.page, 'carol_3');

    await openMenu(a.page);
    await a.page.click('#menu-logout-all');
    await waitText(a.page, '#confirm-text', /on every device/);
    await confirm(a.page, true);
    await waitGuest(a.page, 'carol_3');
    await waitGuest(b.page, 'carol_3');
    await waitGuest(tab.page, 'carol_3');
    const connections = async () => Number((await (await fetch(
        `${server.base}/metrics`)).text()).match(
        /^chess_connections_total (\d+)$/m)[1]);
    let settled = false;
    for (const until = Date.now() + 15000; !settled && Date.now() < until;) {
        const before = await connections();
        const names = [await text(a.page, '#me'),
                       await text(tab.page, '#me')];
        await sleep(1500);
        settled = names[0] === names[1] &&
            names[0] === await text(a.page, '#me') &&
            names[1] === await text(tab.page, '#me') &&
            await connections() === before;
    }
    assert.ok(settled, 'the two tabs settle on one guest');
    await waitText(b.page, '#toasts',
                   /Your account was logged out on every device/);
    assert.notEqual(await myName(a.page), await myName(b.page),
                    'each browser is a guest of its own');
    // The account's token is gone on both: a reload stays a guest.
    await b.page.reload();
    await waitText(b.page, '#conn-text', /^Online$/);
    await waitText(b.page, '#me-kind', /^guest$/);

    // The third browser comes back: its saved login is refused; the page
    // says whose it was and offers to log in again.
    const e2 = await openPlayer(browser, `${server.base}/`, { ctx: e.ctx });
    await waitText(e2.page, '#toasts .toast.error',
                   /Your login as carol_3 has ended/);
    await waitText(e2.page, '#me-kind', /^guest$/);
    await e2.page.click('#toasts .toast.error .toast-action');
    await e2.page.locator('#account-dialog[open]').waitFor();
    await waitText(e2.page, '#account-title', /^Log in$/);
    assert.equal(await e2.page.inputValue('#account-user'), 'carol_3');
    assert.equal(await e2.page.evaluate(() => document.activeElement.id),
                 'account-pass');
    await e2.page.keyboard.type('password three');
    await e2.page.keyboard.press('Enter');
    await waitAccount(e2.page, 'carol_3');
    assertClean(t, a, b, e, e2, tab);
});

test('every refusal of a sign-up or login shows its words',
     { timeout: 120000 }, async (t) => {
    const { server, browser } = await serverAndBrowser(t, {
        extra: ['--logins-per-user-per-min', '3'] });
    const url = `${server.base}/`;
    const a = await openPlayer(browser, url);
    const b = await openPlayer(browser, url);
    // D is A's guest in another browser (A's token copied).
    const aGuest = await token(a.page);
    const d = await openPlayer(browser, url, {
        beforeGoto: (page) => page.addInitScript((tok) => {
            localStorage.setItem('chess.token', tok);
        }, aGuest),
    });
    assert.equal(await myName(d.page), await myName(a.page));

    await submitAccount(a.page, 'signup', 'x', 'long enough');
    await waitError(a.page,
                    /^Usernames are 2 to 20 letters, digits, _ or -\.$/);
    assert.equal(await a.page.getAttribute('#account-user', 'aria-invalid'),
                 'true');
    await a.page.fill('#account-user', 'dave_4');
    await a.page.fill('#account-pass', 'short');
    await a.page.click('#account-ok');
    await waitError(a.page,
                    /^The password is too short: use at least 8 characters\.$/);
    assert.equal(await a.page.getAttribute('#account-pass', 'aria-invalid'),
                 'true');
    await a.page.fill('#account-pass', 'long enough');
    await a.page.click('#account-ok');
    await waitAccount(a.page, 'dave_4');

    await submitAccount(b.page, 'signup', 'DAVE_4', 'long enough');
    await waitError(b.page, /^That username is taken: choose another one\.$/);
    await b.page.click('#account-cancel');

    await submitAccount(d.page, 'signup', 'other_4', 'long enough');
    await waitError(d.page, /^You already have an account/);

    await submitAccount(b.page, 'login', 'nobody_4', 'long enough');
    await waitError(b.page, /^Wrong username or password\.$/);
    for (let i = 0; i < 3; i++) {
        await b.page.fill('#account-user', 'dave_4');
        await b.page.fill('#account-pass', 'wrong password');
        await b.page.click('#account-ok');
        // (a submission clears the last error: this one is the answer's)
        await waitError(b.page, /^Wrong username or password\.$/);
    }
    await b.page.click('#account-ok');
    await waitError(b.page,
                    /^Too many attempts: wait a minute, then try again\.$/);
    await screenshot(b.page, 'login-refused.png');
    await waitText(b.page, '#me-kind', /^guest$/);
    assertClean(t, a, b, d);
});
