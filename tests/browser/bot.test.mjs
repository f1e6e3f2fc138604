// Bot accounts (issue 27 item 5): a bot's name shows "BOT" before it on
// the game page's player bar, as lichess shows a title (PLAYER's "bot").
// The bot here is an account upgraded over the HTTP API
// (POST /api/bot/account/upgrade) that challenges over the API, as
// lichess-bot does; the human accepts on its page.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertClean, register, twoPlayers, waitText } from './lib.mjs';

test('a bot account is marked BOT on the board', { timeout: 90000 },
     async (t) => {
    const { a, b } = await twoPlayers(t);
    await register(a.page, 'robo_w');
    await register(b.page, 'human_b');
    // the bot's token, its upgrade, its challenge: from its page's origin
    const status = await a.page.evaluate(() => new Promise((ok, fail) => {
        const ws = new WebSocket(`ws://${location.host}/ws`, 'chess.v1');
        ws.onopen = () => ws.send(JSON.stringify(
            { t: 'hello', token: localStorage.getItem('chess.token') }));
        ws.onmessage = async (ev) => {
            const m = JSON.parse(ev.data);
            if (m.t === 'welcome')
                ws.send(JSON.stringify({ t: 'token_create',
                                         scopes: ['bot:play'] }));
            if (m.t !== 'token_created')
                return;
            const auth = { Authorization: `Bearer ${m.token}` };
            const up = await fetch('/api/bot/account/upgrade',
                                   { method: 'POST', headers: auth });
            for (let i = 0; i < 50; i++) { // (the flag is written at once)
                const me = await (await fetch('/api/account',
                                              { headers: auth })).json();
                if (me.title === 'BOT')
                    break;
                await new Promise((r) => setTimeout(r, 50));
            }
            const ch = await fetch('/api/challenge/human_b', {
                method: 'POST', headers: auth,
                body: new URLSearchParams({ 'clock.limit': '300',
                                            'clock.increment': '3',
                                            color: 'white', rated: 'false' }),
            });
            ws.close();
            ok([up.status, ch.status]);
        };
        ws.onerror = () => fail(new Error('websocket error'));
    }));
    assert.deepEqual(status, [200, 200]);
    await b.page.click('#challenges button:text("Accept")');
    await waitText(b.page, '#status', /Waiting for your opponent/);
    const bars = await b.page.evaluate(() => ['white', 'black'].map((c) => {
        const bar = document.querySelector(`.pbar[data-color="${c}"]`);
        const title = bar.querySelector('.ptitle');
        return [bar.querySelector('.plink').textContent,
                title ? title.textContent : null];
    }));
    assert.deepEqual(bars, [['robo_w', 'BOT'], ['human_b', null]]);
    assertClean(t, a, b);
});
