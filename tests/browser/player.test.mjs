// A player's page (/p/PID): the finished games from the HTTP API, newest
// first, a page at a time ("More games"), each with the opponent (a link
// to their page), colour, result, reason, clock and date, and links to the
// game and its PGN; the names on a game page link back to it; the filters
// by result and opponent. Viewed at phone width.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, openPlayer, screenshot, serverAndBrowser, text, waitText,
} from './lib.mjs';

// Plays `n` short games between two new guests, Hist_A and Hist_B, over
// WebSockets opened in a page of the server's origin (no client running):
// A invites (white in even games), B joins, then A resigns, B resigns, or
// they agree a draw, in turn. Returns { a, b } (PIDs) and the games in the
// order played, each { game, color (A's), outcome (A's) }.
async function quickGames(browser, base, n) {
    const ctx = await browser.newContext();
    try {
        const page = await ctx.newPage();
        await page.goto(`${base}/healthz`);
        return await page.evaluate(async (count) => {
            const open = (name) => new Promise((ok, fail) => {
                const ws = new WebSocket(`ws://${location.host}/ws`,
                                         'chess.v1');
                const c = { ws, queue: [], waiters: [] };
                ws.onmessage = (e) => {
                    c.queue.push(JSON.parse(e.data));
                    for (const w of c.waiters.splice(0))
                        w();
                };
                ws.onerror = () => fail(new Error('websocket error'));
                c.send = (m) => ws.send(JSON.stringify(m));
                c.expect = async (pred) => {
                    const until = Date.now() + 10000;
                    for (;;) {
                        const bad = c.queue.find((m) => m.t === 'error');
                        if (bad)
                            throw new Error(JSON.stringify(bad));
                        const i = c.queue.findIndex(pred);
                        if (i >= 0)
                            return c.queue.splice(i, 1)[0];
                        if (Date.now() > until)
                            throw new Error('no answer');
                        await new Promise((r) => {
                            c.waiters.push(r);
                            setTimeout(r, 200);
                        });
                    }
                };
                ws.onopen = () => c.send({ t: 'hello', name });
                c.expect((m) => m.t === 'welcome').then((w) => {
                    c.pid = w.player.id;
                    ok(c);
                }, fail);
            });
            const a = await open('Hist_A');
            const b = await open('Hist_B');
            const games = [];
            for (let i = 0; i < count; i++) {
                const color = i % 2 ? 'black' : 'white';
                a.send({ t: 'invite', color, clock: { type: 'fischer',
                         initial_s: 300, increment_s: 3 } });
                const { game } = await a.expect((m) => m.t === 'invited');
                b.send({ t: 'join', game });
                await a.expect((m) => m.t === 'game_start' && m.game === game);
                await b.expect((m) => m.t === 'game_start' && m.game === game);
                let outcome;
                if (i % 3 === 0) {
                    a.send({ t: 'resign', game });
                    outcome = 'Lost';
                } else if (i % 3 === 1) {
                    b.send({ t: 'resign', game });
                    outcome = 'Won';
                } else {
                    a.send({ t: 'draw_offer', game });
                    await b.expect((m) => m.t === 'draw_offered' &&
                                   m.game === game);
                    b.send({ t: 'draw_accept', game });
                    outcome = 'Draw';
                }
                await a.expect((m) => m.t === 'game_end' && m.game === game);
                await b.expect((m) => m.t === 'game_end' && m.game === game);
                games.push({ game, color, outcome });
            }
            a.ws.close();
            b.ws.close();
            return { a: a.pid, b: b.pid, games };
        }, n);
    } finally {
        await ctx.close();
    }
}

// The games the page lists, as { game, outcome, vs, opp, oppHref, open,
// pgn, meta }.
function listed(page) {
    return page.evaluate(() => [...document.querySelectorAll(
        '#player-games li')].map((li) => ({
        game: li.dataset.game,
        outcome: li.querySelector('.hres').textContent,
        vs: li.querySelector('.hvs').textContent,
        opp: li.querySelector('.hopp').textContent,
        oppHref: li.querySelector('.hopp').getAttribute('href'),
        open: li.querySelector('a.hgame-open').getAttribute('href'),
        pgn: li.querySelector('a.hgame-pgn').getAttribute('href'),
        meta: li.querySelector('.hmeta').textContent,
    })));
}

async function waitCount(page, n) {
    await page.waitForFunction((k) =>
        document.querySelectorAll('#player-games li').length === k &&
        document.getElementById('player-games').getAttribute('aria-busy') ===
            'false', n, { polling: 50, timeout: 15000 });
}

test('a player\'s games page by page, with links to games, PGN and players',
     { timeout: 120000 }, async (t) => {
    const { server, browser } = await serverAndBrowser(t);
    const made = await quickGames(browser, server.base, 5);
    const newest = [...made.games].reverse();

    const v = await openPlayer(browser, `${server.base}/p/${made.a}?limit=2`,
                               { phone: true });
    const page = v.page;
    await waitText(page, '#player-title', /^Games of Hist_A$/);
    await waitCount(page, 2);
    assert.ok(await page.locator('#player-more').isVisible());
    await page.click('#player-more');
    await waitCount(page, 4);
    assert.equal(await page.evaluate(() => document.activeElement.closest(
        'li').dataset.game), newest[2].game,
    'the focus goes to the first game added');
    await page.click('#player-more');
    await waitCount(page, 5);
    await page.locator('#player-more').waitFor({ state: 'hidden' });
    await waitText(page, '#player-status', /^5 games, all listed\.$/);

    const rows = await listed(page);
    assert.deepEqual(rows.map((r) => r.game), newest.map((g) => g.game),
                     'newest first, each once');
    for (const [i, r] of rows.entries()) {
        const g = newest[i];
        assert.equal(r.outcome, g.outcome, g.game);
        assert.equal(r.vs, `${g.color === 'white' ? 'White' : 'Black'
        } against Hist_B`);
        assert.equal(r.opp, 'Hist_B');
        assert.equal(r.oppHref, `/p/${made.b}`);
        assert.equal(r.open, `/g/${g.game}`);
        assert.equal(r.pgn, `/api/games/${g.game}/pgn`);
        const reason = g.outcome === 'Draw' ? 'Agreement' : 'Resignation';
        const result = g.outcome === 'Draw' ? '1/2-1/2'
            : (g.outcome === 'Won') === (g.color === 'white') ? '1-0'
                : '0-1';
        assert.match(r.meta, new RegExp(`^5\\+3 · Blitz · Casual · ${reason} · ${
            result.replace(/[/]/g, '\\/')} · \\S`), g.game);
    }
    const pgn = await fetch(server.base + rows[0].pgn);
    assert.equal(pgn.status, 200);
    const pgnText = await pgn.text();
    assert.match(pgnText, new RegExp(`\\[Site "/g/${rows[0].game}"\\]`));
    assert.match(pgnText, /\[White "Hist_A"\]/);

    const overflow = await page.evaluate(() =>
        document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no sideways scrolling at phone width (${
        overflow} px)`);
    await screenshot(page, 'player-games-phone.png');

    // The game's link opens it in the page (no reload); the names there
    // link to the players' pages.
    await page.evaluate(() => { window.notReloaded = true; });
    await page.click(
        `#player-games li[data-game="${rows[0].game}"] a.hgame-open`);
    await page.waitForURL(new RegExp(`/g/${rows[0].game}$`));
    await waitText(page, '#end-title', /^(Draw|White wins|Black wins)$/);
    const names = await page.evaluate(() => Object.fromEntries(
        [...document.querySelectorAll('.pbar .name a')].map((a) =>
            [a.textContent, a.getAttribute('href')])));
    assert.deepEqual(names, { Hist_A: `/p/${made.a}`,
                              Hist_B: `/p/${made.b}` });
    await page.click('.pbar .name a:text-is("Hist_B")');
    await page.waitForURL(new RegExp(`/p/${made.b}$`));
    await waitText(page, '#player-title', /^Games of Hist_B$/);
    await waitCount(page, 5);           // the default page holds them all
    assert.ok(await page.locator('#player-more').isHidden());
    const rowsB = await listed(page);
    assert.equal(rowsB[0].opp, 'Hist_A');
    assert.equal(rowsB[0].oppHref, `/p/${made.a}`);
    assert.equal(await page.evaluate(() => window.notReloaded), true,
                 'links change the page without reloading it');

    // The filters: Hist_B's wins are Hist_A's losses; a draw; nobody.
    await page.selectOption('#pf-result', 'win');
    const lostByA = newest.filter((g) => g.outcome === 'Lost');
    await waitCount(page, lostByA.length);
    assert.deepEqual((await listed(page)).map((r) => r.game),
                     lostByA.map((g) => g.game));
    await page.selectOption('#pf-result', 'draw');
    await waitCount(page, newest.filter((g) => g.outcome === 'Draw').length);
    await page.fill('#pf-vs', 'nobody');
    await page.press('#pf-vs', 'Enter');
    await waitCount(page, 0);
    await waitText(page, '#player-status', /^No game matches\.$/);
    await page.fill('#pf-vs', 'hist_a');   // a name, in any case
    await page.press('#pf-vs', 'Enter');
    await waitCount(page, newest.filter((g) => g.outcome === 'Draw').length);
    await page.selectOption('#pf-result', '');
    await waitCount(page, 5);

    // Back and forward: the history of the page works.
    await page.goBack();
    await page.waitForURL(new RegExp(`/g/${rows[0].game}$`));
    await waitText(page, '#end-title', /\S/);
    assert.ok(await page.locator('#player').isHidden());

    // An unknown player has no games, and its ratings say so (the API's
    // 404 for the player is the one console line the page may log).
    await page.goto(`${server.base}/p/NoSuchPlayer1`);
    await waitText(page, '#player-status', /^No finished games yet\.$/);
    await waitText(page, '#player-ratings', /^There is no such player\.$/);
    assert.equal(await text(page, '#player-title'), 'Finished games');
    const notFound = v.problems.filter((p) => /status of 404/.test(p));
    assert.equal(notFound.length, 1);
    v.problems.splice(v.problems.indexOf(notFound[0]), 1);
    assertClean(t, v);
});
