// The game page (issue 14 item 6 and its small items): the time control
// line above the board, large clocks, the material difference, move
// numbers while browsing, the "Resign and leave" button, no second seek
// during a game, no starting position before the real one, the page of a
// wrong link, each player's signal bar and the server's lag credit when
// it is worth showing, never over a name on a phone (also after a
// reload).

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join as pathJoin } from 'node:path';
import { test } from 'node:test';
import {
    assertClean, closeBrowser, clickMove, confirm, invite, join, launchBrowser,
    logWebSocket, openPlayer, screenshot, serverAndBrowser, sleep,
    startServer, text, twoPlayers, waitPiece, waitText, wsMessages,
} from './lib.mjs';

// Before the page loads: records, in window.firstBoard, what the board
// showed the first time it was visible with any square labelled (the
// square labels say "e4, white pawn"), as { e2, e4 }.
function recordFirstBoard(page) {
    return page.addInitScript(() => {
        window.firstBoard = null;
        const look = () => {
            const board = document.getElementById('board');
            if (window.firstBoard || !board || board.closest('[hidden]') ||
                getComputedStyle(board).visibility === 'hidden')
                return;
            const label = (i) => {
                const el = board.querySelector(`[data-sq="${i}"]`);
                return el && el.getAttribute('aria-label');
            };
            const e2 = label(12), e4 = label(28);
            if (e2 && e4 && /, /.test(e2))
                window.firstBoard = { e2: e2.split(', ')[1],
                                      e4: e4.split(', ')[1] };
        };
        new MutationObserver(look).observe(document, {
            subtree: true, childList: true, attributes: true,
        });
    });
}

async function fontPx(page, selector) {
    return page.evaluate((sel) => parseFloat(getComputedStyle(
        document.querySelector(sel)).fontSize), selector);
}

test('the game page: time control, clocks, material, browsing, leaving',
     { timeout: 120000 }, async (t) => {
    const { server, browser, a, b } = await twoPlayers(t, {
        b: { phone: true },
    });
    const link = await invite(a.page, { preset: '5-3', color: 'white' });

    // Before the game: the time control line is above the board.
    await waitText(a.page, '#kind-text', /^Casual blitz · 5\+3$/);
    const kindBox = await a.page.locator('#game-kind').boundingBox();
    const boardBox = await a.page.locator('#board').boundingBox();
    assert.ok(kindBox.y + kindBox.height <= boardBox.y,
              `the line (y ${kindBox.y}) is above the board (y ${boardBox.y})`);

    await join(b.page, link);
    await waitText(b.page, '#kind-text', /^Casual blitz · 5\+3$/);

    // Clocks at least twice the old 24 px (desktop) and 21 px (phone).
    const desk = await fontPx(a.page, '#bar-bottom .clock');
    const phone = await fontPx(b.page, '#bar-bottom .clock');
    assert.ok(desk >= 48, `desktop clock ${desk} px`);
    assert.ok(phone >= 42, `phone clock ${phone} px`);
    console.log(`# clock font: desktop ${desk} px (board ${
        boardBox.width} px), phone ${phone} px`);

    // Leaving a started game resigns it, and the button says so.
    await waitText(a.page, '#leave-btn', /^Resign and leave$/);

    // Material: 1. e4 d5 2. exd5 puts White a pawn up.
    await clickMove(a.page, 'e2e4');
    await clickMove(b.page, 'd7d5');
    assert.equal(await a.page.locator('#bar-bottom .material').textContent(),
                 '');
    await clickMove(a.page, 'e4d5');
    await waitText(a.page, '#bar-bottom .material .mscore', /^\+1$/);
    await waitText(a.page, '#bar-bottom .material .sr-only',
                   /^White is up a pawn, \+1 point$/);
    await waitText(b.page, '#bar-top .material .mscore', /^\+1$/);
    assert.equal(await a.page.locator('#bar-top .material').textContent(), '');
    // 2... Qxd5: level again.
    await clickMove(b.page, 'd8d5');
    await a.page.waitForFunction(() => document.querySelector(
        '#bar-bottom .material').textContent === '');

    // Browsing counts moves, not half-moves, and the material follows.
    await a.page.click('#nav-prev');
    await waitText(a.page, '#status',
                   /\(viewing 2\. exd5, move 2 of 2\)$/);
    await waitText(a.page, '#bar-bottom .material .mscore', /^\+1$/);
    await screenshot(a.page, 'gamepage-desktop.png');
    await screenshot(b.page, 'gamepage-phone.png');
    await a.page.click('#nav-prev');
    await waitText(a.page, '#status',
                   /\(viewing 1… d5, move 1 of 2\)$/);
    assert.equal(await a.page.locator('#bar-bottom .material').textContent(),
                 '');
    await a.page.click('#nav-first');
    await waitText(a.page, '#status', /\(viewing the starting position\)$/);
    await a.page.click('#nav-last');
    await waitText(a.page, '#status', /^Your move$/);

    // A spectator's board shows the real position first, never the
    // starting one.
    const c = await openPlayer(browser, link, {
        beforeGoto: (page) => recordFirstBoard(page),
    });
    await waitPiece(c.page, 'd5', 'black queen');
    assert.deepEqual(await c.page.evaluate(() => window.firstBoard),
                     { e2: 'empty', e4: 'empty' });
    await waitText(c.page, '#kind-text', /^Casual blitz · 5\+3$/);

    // No second seek while a game is being played: the lobby says why.
    await a.page.click('#home-link');
    await waitText(a.page, '#seek-busy', /You have a game in progress/);
    assert.ok(await a.page.locator('#seek-btn').isDisabled());
    await a.page.click('#mygames-list a');
    await waitText(a.page, '#leave-btn', /^Resign and leave$/);
    await a.page.click('#leave-btn');
    await confirm(a.page, true);
    await a.page.waitForURL(`${server.base}/`);
    await waitText(b.page, '#end-title', /^You won$/);
    await a.page.locator('#seek-btn:not([disabled])').waitFor();
    assert.ok(await a.page.locator('#seek-busy').isHidden());

    // After the end: the same line, and a plain way back.
    await waitText(b.page, '#kind-text', /^Casual blitz · 5\+3$/);
    await waitText(b.page, '#leave-btn', /^Back to lobby$/);
    assertClean(t, a, b, c);
});

test('a wrong game link: a page of its own', { timeout: 60000 },
     async (t) => {
    const { server, browser } = await serverAndBrowser(t);
    for (const phone of [false, true]) {
        const p = await openPlayer(browser, `${server.base}/g/NoSuchGame0123`,
                                   { phone, beforeGoto: recordFirstBoard });
        await waitText(p.page, '#missing h1', /^No such game$/);
        // the error once: on the page, not in a toast as well
        assert.equal(await p.page.locator('.toast').count(), 0);
        assert.ok(await p.page.locator('#board').isHidden());
        assert.ok(await p.page.locator('.nav').isHidden());
        assert.ok(await p.page.locator('#controls').isHidden());
        assert.equal(await p.page.evaluate(() => window.firstBoard), null,
                     'no board was ever shown');
        assert.equal(await p.page.title(), 'No such game · Chess');
        await screenshot(p.page, `nosuchgame-${phone ? 'phone' : 'desktop'
        }.png`);
        await p.page.click('#missing-lobby');
        await p.page.waitForURL(`${server.base}/`);
        await waitText(p.page, '#lobby-title', /^Play chess$/);
        assertClean(t, p);
    }
});

// A TCP proxy to 127.0.0.1:`port` that holds every chunk `delayMs` in
// each direction (a slow line for the server to measure). Returns
// { port, close() }.
function slowProxy(port, delayMs) {
    const socks = new Set();
    const server = net.createServer((client) => {
        const up = net.connect(port, '127.0.0.1');
        socks.add(client);
        socks.add(up);
        const relay = (from, to) => {
            from.on('data', (d) => setTimeout(() => {
                if (!to.destroyed)
                    to.write(d);
            }, delayMs));
            from.on('end', () => setTimeout(() => to.end(), delayMs));
            from.on('error', () => to.destroy());
            from.on('close', () => socks.delete(from));
        };
        relay(client, up);
        relay(up, client);
    });
    return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({
        port: server.address().port,
        close: () => {
            for (const s of socks)
                s.destroy();
            server.close();
        },
    })));
}

// Whether the name in `bar` (a selector) shows whole, and the width the
// bar leaves it.
function nameFits(page, bar) {
    return page.evaluate((sel) => {
        const name = document.querySelector(`${sel} .name`);
        return { whole: name.scrollWidth <= name.clientWidth,
                 room: document.querySelector(`${sel} .pname`).clientWidth,
                 text: name.textContent };
    }, bar);
}

// The signal bars `bar` shows: { level, label }.
function signalOf(page, bar) {
    return page.evaluate((sel) => {
        const el = document.querySelector(`${sel} .signal`);
        return el.closest('[hidden]') ? null
            : { level: Number(el.dataset.level),
                label: el.getAttribute('aria-label') };
    }, bar);
}

test('each player\'s signal; a lag credit worth showing, never over a name',
     { timeout: 90000 }, async (t) => {
    // Pings every second, so that the slow lines are measured soon; the
    // lines' delays are the proxies' (the kernel sees loopback), so the
    // pings are believed as they are.
    const config = pathJoin(tmpdir(), `chess-lag-${process.pid}.json`);
    writeFileSync(config, JSON.stringify({ ping_interval_s: 1,
                                           ping_timeout_s: 10,
                                           lag_rtt_margin_ms: 100000 }));
    const server = await startServer({ extra: ['--config', config] });
    // A's line: 100 ms each way (a credit of 100 ms or more), B's: 40
    const slow = await slowProxy(server.port, 100);
    const fair = await slowProxy(server.port, 40);
    let browser = null;
    t.after(async () => {
        if (browser)
            await closeBrowser(browser);
        slow.close();
        fair.close();
        await server.stop();
    });
    browser = await launchBrowser();
    // A on a phone, B on a desktop
    const a = await openPlayer(browser, `http://127.0.0.1:${slow.port}/`,
                               { phone: true, beforeGoto: logWebSocket });
    const b = await openPlayer(browser, `http://127.0.0.1:${fair.port}/`,
                               { beforeGoto: logWebSocket });
    const link = await invite(a.page, { preset: '5-3', color: 'white' });
    await join(b.page, link.replace(`:${slow.port}/`, `:${fair.port}/`));
    await clickMove(a.page, 'e2e4');
    await clickMove(b.page, 'e7e5');
    await waitPiece(a.page, 'e5', 'black pawn');
    const before = await nameFits(a.page, '#bar-top');
    // Both connections have answered pings by now (one a second).
    await sleep(2500);
    await clickMove(a.page, 'g1f3');
    await waitPiece(b.page, 'f3', 'white knight');
    const moved = (await wsMessages(b.page, 'in', 'moved'))
        .find((m) => m.msg.ply === 3).msg;
    assert.ok(moved.rtt_ms >= 200, `A's round trip: ${moved.rtt_ms} ms`);
    assert.ok(moved.lag_ms >= 100, `the server credited ${moved.lag_ms} ms`);
    // The credit beside the clock of the mover, in seconds, for both
    const cs = Math.round(moved.lag_ms / 10);
    const short = `+${Math.floor(cs / 100)}.${String(cs % 100)
        .padStart(2, '0')}s`;
    const want = `lag credit ${moved.lag_ms} ms`;
    for (const [p, bar] of [[a, '#bar-bottom'], [b, '#bar-top']]) {
        await waitText(p.page, `${bar} .lag`, new RegExp(`^\\${short}$`));
        const entry = p.page.locator('#moves button[data-ply="3"]');
        assert.equal(await entry.getAttribute('title'), want);
        assert.equal(await entry.getAttribute('aria-label'), `2. Nf3, ${want}`);
    }
    await screenshot(a.page, 'lagcredit-phone.png');
    // ... in a place of its own: on the phone both names show whole, with
    // the room they had before the credit
    for (const bar of ['#bar-top', '#bar-bottom']) {
        const fit = await nameFits(a.page, bar);
        assert.ok(fit.whole, `${bar}'s name "${fit.text}" is cut`);
    }
    assert.equal((await nameFits(a.page, '#bar-top')).room, before.room);
    await screenshot(b.page, 'lagcredit-desktop.png');

    // B answers 2.5 s later over its 40 ms line: credited about 40 ms, in
    // the move list, and too little to show beside the clock
    await sleep(2500);
    await clickMove(b.page, 'b8c6');
    await waitPiece(a.page, 'c6', 'black knight');
    const mb = (await wsMessages(a.page, 'in', 'moved'))
        .find((m) => m.msg.ply === 4).msg;
    assert.ok(mb.lag_ms > 0 && mb.lag_ms < 100, `B's credit ${mb.lag_ms}`);
    assert.ok(mb.rtt_ms >= 80, `B's round trip: ${mb.rtt_ms} ms`);
    for (const [p, bar] of [[a, '#bar-top'], [b, '#bar-bottom']])
        await p.page.locator(`${bar} .lag`).waitFor({ state: 'hidden' });
    assert.equal(await a.page.locator('#moves button[data-ply="4"]')
        .getAttribute('title'), `lag credit ${mb.lag_ms} ms`);
    // and A's credit went with the next move
    assert.ok(await b.page.locator('#bar-top .lag').isHidden());
    assert.equal(await text(b.page, '#moves button[data-ply="3"]'), 'Nf3');

    // Each player's signal, as the server measured the lines: the same
    // bars on both pages, from the round trips the moves carried
    const level = (rtt) => (rtt < 150 ? 4 : rtt < 300 ? 3 : rtt < 500 ? 2 : 1);
    const bars = { white: level(moved.rtt_ms), black: level(mb.rtt_ms) };
    assert.ok(bars.white < 4, `A's 200+ ms line shows ${bars.white} bars`);
    for (const [p, top] of [[a, 'black'], [b, 'white']]) {
        const other = top === 'white' ? 'black' : 'white';
        for (const [bar, color] of [['#bar-top', top], ['#bar-bottom', other]]) {
            const sig = await signalOf(p.page, bar);
            assert.equal(sig.level, bars[color], `${color} on ${bar}`);
            assert.match(sig.label, new RegExp(`^${color === 'white'
                ? 'White' : 'Black'}'s connection: \\w+, \\d+ ms round trip$`));
        }
    }
    // A reload keeps them all: state carries every credit and both signals
    await b.page.reload();
    const again = b.page.locator('#moves button[data-ply="3"]');
    await again.waitFor();
    assert.equal(await again.getAttribute('title'), want);
    assert.equal(await again.getAttribute('aria-label'), `2. Nf3, ${want}`);
    assert.equal((await signalOf(b.page, '#bar-top')).level, bars.white);
    assert.equal((await signalOf(b.page, '#bar-bottom')).level, bars.black);
    assertClean(t, a, b);
});
