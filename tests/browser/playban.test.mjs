// lichess's playban in the lobby (PROTOCOL.md "Playban"; web/lobby.js):
// an account aborts five games while its opponent is there (through
// WebSockets of the page's own, the lobby's forms are not the subject);
// the lobby shows the ban with its end (`playban` after welcome), and a
// seek from the lobby is refused with the end in a toast.
// axe-core finds nothing serious on the lobby with the notice.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, axeSerious, openPlayer, register, serverAndBrowser,
    waitText,
} from './lib.mjs';

// Five games: the page's account invites, a new guest joins, the account
// aborts; resolves once the fifth has ended.
function abortFive(page) {
    return page.evaluate(() => new Promise((ok, fail) => {
        const url = `ws://${location.host}/ws`;
        const me = new WebSocket(url, 'chess.v1');
        const other = new WebSocket(url, 'chess.v1');
        const send = (ws, m) => ws.send(JSON.stringify(m));
        let left = 5, ready = 0;
        const next = () => send(me, { t: 'invite', color: 'white',
                                      clock: { type: 'fischer',
                                               initial_s: 300,
                                               increment_s: 0 } });
        const start = () => { if (++ready === 2) next(); };
        me.onopen = () => send(me, {
            t: 'hello', token: localStorage.getItem('chess.token') });
        other.onopen = () => send(other, { t: 'hello', name: 'Patient' });
        me.onmessage = (ev) => {
            const m = JSON.parse(ev.data);
            if (m.t === 'welcome') start();
            else if (m.t === 'invited') send(other, { t: 'join',
                                                      game: m.game });
            else if (m.t === 'state' && m.status === 'started')
                send(me, { t: 'abort', game: m.game });
            else if (m.t === 'game_end' && --left > 0) next();
            else if (m.t === 'game_end') ok();
            else if (m.t === 'error') fail(new Error(m.code));
        };
        other.onmessage = (ev) => {
            if (JSON.parse(ev.data).t === 'welcome') start();
        };
    }));
}

test('the lobby shows a playban and its end', { timeout: 120000 },
     async (t) => {
    const { server, browser } = await serverAndBrowser(t);
    const a = await openPlayer(browser, `${server.base}/`);
    await register(a.page, 'aborter');
    assert.ok(await a.page.locator('#playban').isHidden());
    await abortFive(a.page);
    // (the page followed its account's games: back to the lobby)
    await a.page.goto(`${server.base}/`);
    await waitText(a.page, '#conn-text', /^Online$/);
    await waitText(a.page, '#playban',
                   /too many games: you may start a new one at .* \(a ban of 10 min\)/);
    assert.deepEqual(await axeSerious(a.page), []);
    await a.page.click('#presets label:has-text("3+0")');
    await waitText(a.page, '#toasts', /no new game for 10 min, until/);
    assertClean(t, a);
});
