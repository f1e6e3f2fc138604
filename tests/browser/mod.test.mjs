// The moderation page (/mod, web/mod.js; PROTOCOL.md section 4,
// "Moderation"): a player who is no moderator is told so; once the
// operator grants the role (`chess-server mod grant`), the page shows the
// report queue with the report's text, and a warning sent from it reaches
// the warned player as a toast with the moderator's words. A player
// looked up shows its chat lines, one deleted from the page leaves the
// others' pages; a mute from the page refuses the
// chatter's next line with the mute's words; a maintenance announced from
// the page is a banner on another player's page (and after a reload),
// until it is cancelled; a game ended from the page tells both players
// why. axe-core finds nothing serious on the page.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as pathJoin } from 'node:path';
import { test } from 'node:test';
import {
    SERVER, assertClean, axeSerious, invite, join, openPlayer, register,
    twoPlayers, waitText,
} from './lib.mjs';

test('a moderator warns a reported player from /mod', { timeout: 90000 },
     async (t) => {
    const { server, a, b } = await twoPlayers(t);
    const p = a.page;
    await register(p, 'mona');
    const bob = await register(b.page, 'bob');
    await p.goto(`${server.base}/p/${bob}`);
    await waitText(p, '#conn-text', /^Online$/);
    await p.click('#report-btn');
    await p.selectOption('#report-reason', 'spam');
    await p.fill('#report-text', 'links in every chat');
    await p.click('#report-send');
    await waitText(p, '#relation-status', /Report about bob sent/);

    await p.goto(`${server.base}/mod`);
    await waitText(p, '#mod-status', /only a moderator/);
    const grant = spawnSync(SERVER, ['mod', 'grant', 'mona', '--db',
                                     server.db], { encoding: 'utf8' });
    assert.equal(grant.status, 0, grant.stderr);
    await p.click('#mod-refresh');
    await waitText(p, '#mod-queue', /bob · spam · score 20/);
    await waitText(p, '#mod-queue', /links in every chat/);
    await p.reload(); // (the welcome says moderator: the link shows)
    await waitText(p, '#mod-link', /^Moderation$/);
    await waitText(p, '#mod-queue', /links in every chat/);
    assert.deepEqual(await axeSerious(p), [], 'the moderation page');
    await p.fill(`#mod-why-${bob}-spam`, 'no links, please');
    await p.click('.mod-warn');
    await waitText(p, '#mod-status', /Done: warn bob/);
    await waitText(b.page, '#toasts',
                   /A moderator \(mona\) warns you: no links, please/);
    assertClean(t, a, b);
});

test('a moderator mutes a chatter and announces a maintenance from /mod',
     { timeout: 90000 }, async (t) => {
    const dir = mkdtempSync(pathJoin(tmpdir(), 'chess-mod-'));
    const cfg = pathJoin(dir, 'chat.json');
    writeFileSync(cfg, JSON.stringify({ chat_guests: 1 }));
    const { server, browser, a, b } = await twoPlayers(t, {
        server: { extra: ['--config', cfg] },
    });
    const p = a.page;
    await register(p, 'mona');
    await register(b.page, 'bob');
    const grant = spawnSync(SERVER, ['mod', 'grant', 'mona', '--db',
                                     server.db], { encoding: 'utf8' });
    assert.equal(grant.status, 0, grant.stderr);
    // bob chats in a game with a guest
    const c = await openPlayer(browser, `${server.base}/`);
    const link = await invite(b.page, { preset: '10-5', color: 'white' });
    await join(c.page, link);
    await waitText(b.page, '#chat-title', /^Chat$/);
    await b.page.fill('#chat-input', 'buy my links');
    await b.page.click('#chat-send');
    await waitText(c.page, '#chat-log', /buy my links/);

    await p.goto(`${server.base}/mod`);
    await waitText(p, '#conn-text', /^Online$/);
    await p.fill('#mod-lookup-name', 'bob');
    await p.click('#mod-lookup');
    await waitText(p, '#mod-chat', /buy my links/);
    await waitText(p, '#mod-history', /None yet/);
    // the line deleted: gone from the others' pages
    await p.fill('#mod-p-why', 'spam');
    await p.click('.mod-p-chat-delete');
    await waitText(p, '#mod-chat', /No chat lines/);
    await c.page.waitForFunction(() => !/buy my links/.test(
        document.getElementById('chat-log').textContent));
    await p.fill('#mod-p-why', 'no spam');
    await p.click('.mod-p-mute');
    await waitText(p, '#mod-status', /Done: mute bob until/);
    await waitText(p, '#mod-history', /mona: mute until .* \(no spam\)/);
    await waitText(b.page, '#toasts',
                   /A moderator \(mona\) muted your chat until .*: no spam/);
    await b.page.fill('#chat-input', 'still here');
    await b.page.click('#chat-send');
    await waitText(b.page, '#chat-note',
                   /^muted by a moderator until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    assert.doesNotMatch(await c.page.textContent('#chat-log'), /still here/);
    assert.deepEqual(await axeSerious(p), [], 'the moderation page');

    // a maintenance: a banner on the others' pages, a late joiner's too
    await p.fill('#mod-maint-text', 'upgrade to 2.0');
    await p.click('#mod-maint-send');
    await waitText(c.page, '#maintenance',
                   /^Maintenance at .+ \(announced by mona\): upgrade to 2\.0$/);
    await c.page.reload();
    await waitText(c.page, '#maintenance', /upgrade to 2\.0/);
    await p.click('#mod-maint-cancel');
    await c.page.waitForSelector('#maintenance', { state: 'hidden' });

    // the game ended from the page: both players see why
    await p.fill('#mod-game-id', link);
    await p.selectOption('#mod-game-result', '0-1');
    await p.fill('#mod-game-why', 'test');
    await p.click('#mod-game-end');
    await waitText(p, '#mod-status', /Done: game_end/);
    for (const q of [b.page, c.page])
        await waitText(q, '#end-reason', /A moderator gave the game/);
    assertClean(t, a, b, c);
});
