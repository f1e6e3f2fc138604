// API tokens in the settings dialog (web/tokens.js): an account makes one
// with a description and scopes, sees it once with a copy button, finds
// it listed without its text, uses it on the HTTP API, and revokes it; a
// guest sees no tokens. axe-core finds nothing serious in the dialog.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, axeSerious, guestNamed, register, twoPlayers, waitText,
} from './lib.mjs';

async function openSettings(page) {
    await page.focus('#settings-btn');
    await page.keyboard.press('Enter');
    await page.locator('#settings-dialog[open]').waitFor();
}

// GET /api/account with the token, as a program would (not from the page,
// whose console would report the 401): [status, body].
async function account(server, token) {
    const r = await fetch(`${server.base}/api/account`,
                          { headers: { Authorization: `Bearer ${token}` } });
    return [r.status, await r.json()];
}

test('tokens: made with scopes, shown once, listed, used, revoked',
     { timeout: 60000 }, async (t) => {
    const { server, a } = await twoPlayers(t, { b: null });
    const p = a.page;
    await register(p, 'tokenfan');
    await openSettings(p);
    await p.locator('#tokens').waitFor();
    assert.equal(await p.isVisible('#token-none'), true);
    await p.fill('#token-desc', 'my engine');
    await p.check('#token-scope-bot-play');
    await p.check('#token-scope-challenge-read');
    await p.check('#token-scope-tournament-write');
    await p.click('#token-create');
    await waitText(p, '#token-text', /^lip_[A-Za-z0-9_-]{20}$/);
    const token = (await p.textContent('#token-text')).trim();
    assert.equal(await p.evaluate(() => document.activeElement.id),
                 'token-copy', 'focus on the copy button');
    await waitText(p, '#token-list',
                   /my engine \(bot:play, challenge:read, tournament:write/);
    assert.ok(!(await p.textContent('#token-list')).includes(token),
              'the list never shows a token');
    assert.equal(await p.isVisible('#token-none'), false);
    // the copy button
    await p.context().grantPermissions(['clipboard-read',
                                        'clipboard-write']);
    await p.click('#token-copy');
    await waitText(p, '#token-status', /Copied|Select the token/);
    assert.deepEqual(await axeSerious(p), [], 'settings with a token');

    const [status, me] = await account(server, token);
    assert.equal(status, 200);
    assert.equal(me.username, 'tokenfan');

    // reopened: the token's text is gone, the list is there
    await p.keyboard.press('Escape');
    await openSettings(p);
    await waitText(p, '#token-list', /my engine/);
    assert.equal(await p.isVisible('#token-new'), true,
                 'shown until the page goes');
    await p.reload();
    await waitText(p, '#conn-text', /^Online$/);
    await openSettings(p);
    await waitText(p, '#token-list', /my engine/);
    assert.equal(await p.isVisible('#token-new'), false);
    assert.equal(await p.textContent('#token-text'), '');

    await p.click('#token-list button:has-text("Revoke")');
    await waitText(p, '#token-status', /revoked/);
    await p.locator('#token-none').waitFor();
    assert.deepEqual(await account(server, token),
                     [401, { error: 'No such token' }]);
    assertClean(t, a);
});

test('tokens: a guest has none', { timeout: 60000 }, async (t) => {
    const { a } = await twoPlayers(t, { b: null });
    await guestNamed(a.page, 'justvisiting');
    await openSettings(a.page);
    assert.equal(await a.page.isVisible('#tokens'), false);
    assertClean(t, a);
});
