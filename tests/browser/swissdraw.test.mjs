// A Swiss game's draw offer (issue 31; PROTOCOL.md "Swiss tournaments":
// no draw by agreement before move 30, and state's draw_from_ply): the
// game page's Offer draw button is disabled, with a tooltip saying why,
// from the start to ply 59, also after a reload and a restart; enabled at
// ply 60; a takeback back to ply 59 disables it again. The page links
// the game to its event after the reload and the restart too (state's
// "event"). A casual game's button is enabled from the first position.
// The moves go over sockets of the players' own (the page shows them as
// any move of another tab).

import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as pathJoin } from 'node:path';
import { test } from 'node:test';
import {
    assertClean, invite, join, moveCount, twoPlayers, waitText,
} from './lib.mjs';

// 60 plies without a fivefold (test_swiss_rules.py's): an Italian game's
// 20, then White's rook a1-b1-a1 and Black's queen e7-d8-e8-e7.
const ITALIAN = ('e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 d2d3 f8c5 c2c3 d7d6 b1d2 ' +
                 'a7a6 a2a4 h7h6 h2h3 c8e6 d1e2 d8e7 e1g1 e8g8').split(' ');
const SHUFFLE = [];
for (let i = 0; i < 20; i++)
    SHUFFLE.push(['a1b1', 'b1a1'][i % 2], ['e7d8', 'd8e8', 'e8e7'][i % 3]);
const MOVES = ITALIAN.concat(SHUFFLE);
const EARLY = /^No draw offers before move 30 in this tournament's games\.$/;

// Opens, in page, a socket of the page's own player (its token), kept as
// window.raw: raw.ask(msg, want) sends msg and resolves with the first
// message after it that has want's fields (an error rejects).
async function rawSocket(page) {
    await page.evaluate(() => new Promise((ok, fail) => {
        const ws = new WebSocket(`ws://${location.host}/ws`, 'chess.v1');
        const waiting = [];
        window.raw = {
            ws,
            ask(msg, want) {
                return new Promise((res, rej) => {
                    waiting.push({ want, res, rej });
                    ws.send(JSON.stringify(msg));
                });
            },
        };
        ws.onopen = () => ws.send(JSON.stringify(
            { t: 'hello', token: localStorage.getItem('chess.token') }));
        ws.onmessage = (ev) => {
            const m = JSON.parse(ev.data);
            if (m.t === 'welcome')
                ok();
            const i = waiting.findIndex((w) => m.t === 'error' ||
                Object.entries(w.want).every(([k, v]) => m[k] === v));
            if (i < 0)
                return;
            const [w] = waiting.splice(i, 1);
            if (m.t === 'error')
                w.rej(new Error(`${m.code}: ${m.msg}`));
            else
                w.res(m);
        };
        ws.onerror = () => fail(new Error('raw socket'));
    }));
}

// want: a message type, or the fields of the message awaited.
function ask(page, msg, want) {
    const fields = typeof want === 'string' ? { t: want } : want;
    return page.evaluate(([m, f]) => window.raw.ask(m, f), [msg, fields]);
}

// Plays MOVES[from..to) of game gid, white's on page w, black's on b,
// each answered (its moved) before the next.
async function play(w, b, gid, from, to) {
    for (let ply = from; ply < to; ply++)
        await ask(ply % 2 ? b : w,
                  { t: 'move', game: gid, uci: MOVES[ply], ply },
                  { t: 'moved', game: gid, ply: ply + 1 });
}

async function waitPly(page, n) {
    await page.waitForFunction((k) =>
        document.querySelectorAll('#moves button.move').length === k,
    n, { timeout: 15000, polling: 50 });
}

async function drawButton(page) {
    return page.evaluate(() => {
        const b = document.getElementById('draw-btn');
        return { hidden: b.hidden || !!b.closest('[hidden]'),
                 disabled: b.disabled, title: b.title };
    });
}

// The game page's link to Swiss event ev (a reload, a restart: from the
// state's "event"), without a Berserk button.
async function swissLink(page, ev) {
    await waitText(page, '#game-arena', /Tournament: Draws/);
    assert.match(await page.getAttribute('#game-arena a', 'href'),
                 new RegExp(`/t/${ev}\\?swiss$`));
    assert.equal(await page.isHidden('#berserk-btn'), true);
}

test('a Swiss game offers no draw before move 30', { timeout: 180000 },
     async (t) => {
    const conf = pathJoin(mkdtempSync(pathJoin(tmpdir(), 'chess-swd-')),
                          'config.json');
    writeFileSync(conf, JSON.stringify({ arena_create: 2, move_burst: 80 }));
    const { server, a, b } = await twoPlayers(t, {
        server: { extra: ['--config', conf] } });
    await rawSocket(a.page);
    await rawSocket(b.page);
    const ev = (await ask(a.page, {
        t: 'swiss_create', name: 'Draws', rounds: 1,
        clock: { type: 'fischer', initial_s: 600, increment_s: 0 },
    }, 'swiss_created')).swiss.event;
    await ask(a.page, { t: 'swiss_join', event: ev }, 'swiss_joined');
    await ask(b.page, { t: 'swiss_join', event: ev }, 'swiss_joined');
    const start = await ask(a.page, { t: 'swiss_start', event: ev },
                            'game_start');
    const gid = start.game;
    const [w, bl] = start.you === 'white' ? [a, b] : [b, a];
    for (const p of [a, b]) {
        await p.page.waitForURL(new RegExp(`/g/${gid}$`));
        await waitText(p.page, '#game-arena', /Tournament: Draws/);
    }

    // the first position: there, disabled, and the tooltip says why
    for (const p of [a, b]) {
        await p.page.locator('#draw-btn:not([hidden])').waitFor();
        const first = await drawButton(p.page);
        assert.equal(first.disabled, true, 'ply 0: disabled');
        assert.match(first.title, EARLY);
    }
    await play(w.page, bl.page, gid, 0, 59);
    await waitPly(w.page, 59);
    let btn = await drawButton(w.page);
    assert.equal(btn.disabled, true, 'ply 59: still disabled');
    assert.match(btn.title, EARLY);
    // a reload (a new connection: the state of a sync) keeps it
    await w.page.reload();
    await waitText(w.page, '#conn-text', /^Online$/);
    await waitPly(w.page, 59);
    await w.page.locator('#draw-btn:not([hidden])').waitFor();
    btn = await drawButton(w.page);
    assert.equal(btn.disabled, true, 'ply 59 after a reload');
    assert.match(btn.title, EARLY);
    // and the link to the event (state's "event"), no Berserk button
    await swissLink(w.page, ev);
    // and a restart of the server (the game restored, the rule set again)
    await server.restart();
    for (const p of [w, bl]) {
        await waitText(p.page, '#conn-text', /^Online$/, 30000);
        await waitPly(p.page, 59);
        await p.page.locator('#draw-btn[disabled]:not([hidden])').waitFor();
        assert.match((await drawButton(p.page)).title, EARLY);
        await swissLink(p.page, ev);
        await rawSocket(p.page);
    }

    // move 30 played by both: the offer is there, for both
    await play(w.page, bl.page, gid, 59, 60);
    for (const p of [w, bl]) {
        await waitPly(p.page, 60);
        await p.page.locator('#draw-btn:not([disabled]):not([hidden])')
            .waitFor();
        assert.deepEqual(await drawButton(p.page),
                         { hidden: false, disabled: false, title: '' });
    }
    // a takeback of black's 30th move: back under the rule
    await ask(bl.page, { t: 'takeback', game: gid }, 'takeback_requested');
    await ask(w.page, { t: 'takeback_accept', game: gid }, 'taken_back');
    for (const p of [w, bl]) {
        await waitPly(p.page, 59);
        await p.page.locator('#draw-btn[disabled]').waitFor();
        assert.match((await drawButton(p.page)).title, EARLY);
    }
    assert.equal(await moveCount(bl.page), 59);
    // and the server agrees: an offer now is refused
    await assert.rejects(ask(bl.page, { t: 'draw_offer', game: gid },
                             'draw_offered'), /draw_too_early/);
    assertClean(t, a, b);
});

test('a casual game offers a draw from the start', { timeout: 60000 },
     async (t) => {
    const { a, b } = await twoPlayers(t);
    const link = await invite(a.page, { preset: '10-5', color: 'white' });
    await join(b.page, link);
    await waitText(a.page, '#status', /^Your move$/);
    for (const p of [a, b]) {
        await p.page.locator('#draw-btn:not([hidden])').waitFor();
        assert.deepEqual(await drawButton(p.page),
                         { hidden: false, disabled: false, title: '' });
    }
    assertClean(t, a, b);
});
