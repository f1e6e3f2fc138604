// Rematch from the end panel (PROTOCOL.md section 7): an offer seen on the
// other page and accepted (both pages move to the new game, colours
// swapped, the board turned), a declined offer and a withdrawn one (who may
// offer again), an offer that lapses when the opponent goes to the lobby,
// and one that reaches the opponent there, and one that lapses with a
// dropped connection. B plays at phone size.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, clickMove, confirm, cuttable, invite, join, screenshot,
    twoPlayers, waitText,
} from './lib.mjs';

const gidOf = (page) => new URL(page.url()).pathname.split('/')[2];

// A game from an invitation with A white, over after two moves: `loser`
// resigns. Returns its GID.
async function shortGame(a, b, server, loser) {
    await a.page.goto(`${server.base}/`);
    await waitText(a.page, '#conn-text', /^Online$/);
    const link = await invite(a.page, { preset: '5-3', color: 'white' });
    await join(b.page, link);
    await clickMove(a.page, 'e2e4');
    await clickMove(b.page, 'e7e5');
    await resign(loser);
    return gidOf(a.page);
}

async function resign(p) {
    await p.page.click('#resign-btn');
    await confirm(p.page, true);
    await waitText(p.page, '#end-title', /^You lost$/);
}

// The end panel's rematch part as the page shows it.
async function rematchView(page) {
    return page.evaluate(() => {
        const el = (id) => document.getElementById(id);
        const shown = (id) => !el(id).closest('[hidden]');
        return {
            note: el('rematch-note').textContent,
            incoming: el('rematch-note').classList.contains('incoming'),
            button: shown('rematch-btn') ? el('rematch-btn').textContent : null,
            buttonEnabled: shown('rematch-btn') && !el('rematch-btn').disabled,
            withdraw: shown('rematch-withdraw-btn'),
            answer: shown('rematch-accept-btn') && shown('rematch-decline-btn'),
            link: shown('rematch-link') ? el('rematch-link').pathname : null,
        };
    });
}

// Waits until the rematch part shows `want` (a subset of rematchView).
async function waitRematch(page, want) {
    let seen;
    for (const until = Date.now() + 15000; Date.now() < until;) {
        seen = await rematchView(page);
        if (Object.entries(want).every(([k, v]) => seen[k] === v))
            return;
        await page.waitForTimeout(50);
    }
    assert.fail(`rematch never showed ${JSON.stringify(want)}: ${
        JSON.stringify(seen)}`);
}

// The page shows game `gid` as `color`'s player, with that side at the
// bottom of the board.
async function waitSeat(page, gid, color) {
    await page.waitForURL(new RegExp(`/g/${gid}$`));
    await page.waitForFunction((c) => {
        const bar = document.getElementById('bar-bottom');
        const first = document.querySelector('#board [data-sq]');
        return bar.dataset.color === c &&
            !bar.querySelector('.pyou').hidden &&
            first.dataset.sq === (c === 'white' ? '56' : '7') &&
            document.getElementById('board').classList
                .contains('flipped') === (c === 'black');
    }, color, { timeout: 15000, polling: 50 });
}

test('rematch: offered, accepted, declined, withdrawn, lapsed',
     { timeout: 240000 }, async (t) => {
    let net;
    const { server, a, b } = await twoPlayers(t, { b: {
        phone: true,
        beforeGoto: async (page) => { net = await cuttable(page); },
    } });

    await t.test('an offer on one page is accepted on the other; the new ' +
                 'game has the colours swapped', async () => {
        const old = await shortGame(a, b, server, b);
        for (const p of [a, b])
            await waitRematch(p.page, { button: 'Rematch',
                                        buttonEnabled: true, note: '' });
        // The incoming offer is announced: a polite live region.
        assert.equal(await b.page.getAttribute('#rematch-note', 'aria-live'),
                     'polite');

        await a.page.click('#rematch-btn');
        await waitRematch(a.page, { button: 'Rematch offered',
                                    buttonEnabled: false, withdraw: true });
        await waitText(a.page, '#rematch-note', /^You offered a rematch\./);
        // keyboard: the withdraw button takes the focus of the one pressed
        assert.equal(await a.page.evaluate(() => document.activeElement.id),
                     'rematch-withdraw-btn');
        await waitRematch(b.page, { note: 'Your opponent offers a rematch.',
                                    incoming: true, answer: true,
                                    button: null });
        // Fits a phone: nothing sticks out sideways.
        assert.ok(await b.page.evaluate(() =>
            document.documentElement.scrollWidth <= window.innerWidth));
        await screenshot(b.page, 'rematch-offer-phone.png');
        await screenshot(a.page, 'rematch-offered.png');

        // B accepts from the keyboard.
        await b.page.focus('#rematch-accept-btn');
        await b.page.keyboard.press('Enter');
        await b.page.waitForURL((u) => !u.pathname.endsWith(`/${old}`));
        const next = gidOf(b.page);
        assert.notEqual(next, old);
        await waitSeat(b.page, next, 'white');
        await waitSeat(a.page, next, 'black');
        await waitText(b.page, '#status', /^Your move$/);
        await waitText(a.page, '#status', /^Waiting for your opponent to move$/);
        assert.ok(await a.page.locator('#end-panel').isHidden());

        // Back on the old game, its end panel leads to the rematch.
        await a.page.goBack();
        await waitText(a.page, '#rematch-note', /^The rematch has started\.$/);
        await waitRematch(a.page, { link: `/g/${next}`, button: null,
                                    answer: false });
        await a.page.click('#rematch-link');
        await waitSeat(a.page, next, 'black');
    });

    await t.test('a declined offer is told on both pages; the decliner ' +
                 'may offer, and withdraw', async () => {
        // The rematch of the test before: B white, A black.
        await clickMove(b.page, 'd2d4');
        await clickMove(a.page, 'd7d5');
        await resign(b);
        await b.page.click('#rematch-btn');
        await waitRematch(a.page, { incoming: true, answer: true });
        await a.page.click('#rematch-decline-btn');
        await waitRematch(a.page, { note: 'You declined the rematch.',
                                    incoming: false, answer: false,
                                    button: 'Rematch', buttonEnabled: true });
        // B's offer was declined: the server would refuse another.
        await waitRematch(b.page, { note: 'Your opponent declined the ' +
                                          'rematch.',
                                    button: 'Rematch declined',
                                    buttonEnabled: false, withdraw: false });

        // A, who declined, may still offer; then withdraws by keyboard.
        await a.page.click('#rematch-btn');
        await waitRematch(b.page, { incoming: true, answer: true });
        await waitRematch(a.page, { withdraw: true });
        await a.page.keyboard.press('Enter');
        await waitRematch(a.page, { note: 'You withdrew your rematch offer.',
                                    button: 'Rematch withdrawn',
                                    buttonEnabled: false, withdraw: false });
        await waitRematch(b.page, { note: 'Your opponent withdrew the ' +
                                          'rematch offer.',
                                    incoming: false, answer: false,
                                    button: 'Rematch declined',
                                    buttonEnabled: false });
    });

    await t.test('an offer lapses when the opponent goes to the lobby; a ' +
                 'new one reaches them there', async () => {
        const old = await shortGame(a, b, server, a);
        await a.page.click('#rematch-btn');
        await waitRematch(b.page, { incoming: true });
        await b.page.click('#leave-btn');     // "Back to lobby"
        await b.page.waitForURL(`${server.base}/`);
        await waitRematch(a.page, { note: 'Your opponent left: the rematch ' +
                                          'offer lapsed.',
                                    button: 'Rematch', buttonEnabled: true });

        // A offers again; B, in the lobby, is told and goes to accept.
        await a.page.click('#rematch-btn');
        await waitText(b.page, '.toast', /Your opponent offers a rematch\./);
        await b.page.click('.toast .toast-action');
        await b.page.waitForURL(new RegExp(`/g/${old}$`));
        await waitRematch(b.page, { incoming: true, answer: true });
        await b.page.click('#rematch-accept-btn');
        await b.page.waitForURL((u) => !u.pathname.endsWith(`/${old}`));
        const next = gidOf(b.page);
        await waitSeat(b.page, next, 'white');
        await waitSeat(a.page, next, 'black');
    });

    await t.test('an offer lapses when the connection drops; the page ' +
                 'forgets it', async () => {
        const old = await shortGame(a, b, server, b);
        await a.page.click('#rematch-btn');
        await waitRematch(b.page, { incoming: true, answer: true });
        await net.drop();
        await waitText(b.page, '#conn-text', /^Offline/);
        assert.ok(await b.page.locator('#rematch-accept-btn').isDisabled(),
                  'no answer while offline');
        await waitRematch(a.page, { note: 'Your opponent left: the rematch ' +
                                          'offer lapsed.',
                                    withdraw: false, button: 'Rematch',
                                    buttonEnabled: true });
        net.restore();
        await waitText(b.page, '#conn-text', /^Online$/, 30000);
        await waitRematch(b.page, { note: 'The connection dropped: the ' +
                                          'rematch offer may have lapsed.',
                                    incoming: false, answer: false,
                                    button: 'Rematch', buttonEnabled: true });
        // B may offer now (the phone's panel holds it); A accepts.
        await b.page.click('#rematch-btn');
        await waitRematch(b.page, { button: 'Rematch offered',
                                    withdraw: true });
        assert.ok(await b.page.evaluate(() =>
            document.documentElement.scrollWidth <= window.innerWidth));
        await screenshot(b.page, 'rematch-offered-phone.png');
        await waitRematch(a.page, { incoming: true, answer: true });
        await a.page.click('#rematch-accept-btn');
        await a.page.waitForURL((u) => !u.pathname.endsWith(`/${old}`));
        const next = gidOf(a.page);
        await waitSeat(a.page, next, 'black');
        await waitSeat(b.page, next, 'white');
    });

    assertClean(t, a, b);
});

test('an acceptance the server refuses is told; the offer stays',
     { timeout: 120000 }, async (t) => {
    const { server, a, b } = await twoPlayers(t, {
        server: { extra: ['--max-games-per-player', '1'] },
    });
    const old = await shortGame(a, b, server, b);
    await a.page.click('#rematch-btn');
    await waitRematch(b.page, { incoming: true, answer: true });
    // B holds an invitation made in another tab: B may hold no more games.
    const tab = await b.ctx.newPage();
    await tab.goto(`${server.base}/`);
    await waitText(tab, '#conn-text', /^Online$/);
    await invite(tab, { preset: '3-0', color: 'white' });
    await b.page.click('#rematch-accept-btn');
    await waitRematch(b.page, {
        note: 'Your opponent offers a rematch. You have too many games, ' +
              'invitations and seeks open: finish or cancel some first.',
        incoming: true, answer: true });
    assert.match(b.page.url(), new RegExp(`/g/${old}$`));
    // The offer is still pending: after the invitation goes, B accepts.
    await tab.click('#cancel-invite-btn');
    await waitText(tab, '#end-title', /^Invitation cancelled$/);
    await b.page.click('#rematch-accept-btn');
    await b.page.waitForURL((u) => !u.pathname.endsWith(`/${old}`));
    await waitSeat(b.page, gidOf(b.page), 'white');
    await waitSeat(a.page, gidOf(b.page), 'black');
    assertClean(t, a, b);
});
