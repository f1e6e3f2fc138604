// The moderation page (/mod, web/mod.js; PROTOCOL.md section 4,
// "Moderation"): a player who is no moderator is told so; once the
// operator grants the role (`chess-server mod grant`), the page shows the
// report queue with the report's text, and a warning sent from it reaches
// the warned player as a toast with the moderator's words. axe-core finds
// nothing serious on the page.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import {
    SERVER, assertClean, axeSerious, register, twoPlayers, waitText,
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
