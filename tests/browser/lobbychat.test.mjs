// The lobby's chat room (lobby_chat on): two accounts on the lobby page
// see each other's lines, each sender's name linking to /p/PID; a guest
// reads but cannot write (the refusal shown in the room); a phone keeps
// the room behind a tab; axe-core clean on both. A tournament's room on
// its page: two visitors talk there, and the lobby's room is not shown.

import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as pathJoin } from 'node:path';
import { test } from 'node:test';
import {
    assertClean, axeSerious, openPlayer, register, screenshot,
    serverAndBrowser, waitText,
} from './lib.mjs';

async function say(page, text) {
    await page.fill('#lobby-chat-input', text);
    await page.click('#lobby-chat-send');
}

function lines(page) {
    return page.$$eval('#lobby-chat-log .chat-line',
                       (l) => l.map((li) => li.textContent));
}

async function waitLines(page, n) {
    await page.waitForFunction((k) => document.querySelectorAll(
        '#lobby-chat-log .chat-line').length === k, n);
}

test('the lobby room: two accounts talk, a guest reads only',
     { timeout: 120000 }, async (t) => {
    const dir = mkdtempSync(pathJoin(tmpdir(), 'chess-lobbychat-'));
    const cfg = pathJoin(dir, 'lobby.json');
    writeFileSync(cfg, JSON.stringify({ lobby_chat: 1 }));
    const { server, browser } = await serverAndBrowser(
        t, { extra: ['--config', cfg] });
    const url = `${server.base}/`;
    const a = await openPlayer(browser, url);
    const b = await openPlayer(browser, url);
    const aPid = await register(a.page, 'alice');
    await register(b.page, 'bob');
    for (const p of [a, b])
        await p.page.waitForSelector('#lobby-chat', { state: 'visible' });

    await say(a.page, 'blitz anyone? <b>hi</b>');
    await waitLines(b.page, 1);
    await say(b.page, 'sure');
    for (const p of [a, b])
        await waitLines(p.page, 2);
    assert.deepEqual(await lines(b.page),
                     ['aliceblitz anyone? <b>hi</b>', 'bobsure']);
    assert.equal(await b.page.locator('#lobby-chat-log b').count(), 0,
                 'text, never HTML');
    assert.equal(await b.page.getAttribute(
        '#lobby-chat-log .chat-line:first-child a', 'href'), `/p/${aPid}`);
    await screenshot(a.page, 'lobby-chat-desktop.png');
    assert.deepEqual(await axeSerious(a.page), [], 'desktop');

    // A guest on a phone: the room behind its tab; reads, may not write.
    const g = await openPlayer(browser, url, { phone: true });
    await g.page.waitForSelector('#lobby-chat-tab', { state: 'visible' });
    assert.equal(await g.page.isVisible('#lobby-chat'), false,
                 'behind the tab');
    await g.page.click('#lobby-chat-tab');
    await waitLines(g.page, 2);
    assert.equal(await g.page.isVisible('#open-seeks'), false);
    await say(g.page, 'me too');
    await waitText(g.page, '#lobby-chat .chat-note', /guests may not chat/);
    await screenshot(g.page, 'lobby-chat-phone.png');
    assert.deepEqual(await axeSerious(g.page), [], 'phone');
    assert.equal((await lines(a.page)).length, 2, 'nothing from the guest');
    await g.page.click('#lobby-chat-tab-games');
    await g.page.waitForSelector('#open-seeks', { state: 'visible' });
    assertClean(t, a, b, g);
});

test('a tournament\'s room on its page', { timeout: 120000 }, async (t) => {
    const dir = mkdtempSync(pathJoin(tmpdir(), 'chess-eventchat-'));
    const cfg = pathJoin(dir, 'event.json');
    writeFileSync(cfg, JSON.stringify({ arena_create: 2, chat_guests: 1 }));
    const { server, browser } = await serverAndBrowser(
        t, { extra: ['--config', cfg] });
    const a = await openPlayer(browser, `${server.base}/tournaments`);
    await a.page.fill('#arena-name', 'Club');
    await a.page.fill('#arena-start', '60');
    await a.page.click('#arena-create-btn');
    await a.page.waitForURL(/\/t\/[A-Za-z0-9_-]+$/);
    const b = await openPlayer(browser, a.page.url());
    for (const p of [a, b])
        await p.page.waitForSelector('#event-chat', { state: 'visible' });
    await a.page.fill('#event-chat-input', 'welcome to the club');
    await a.page.click('#event-chat-send');
    await waitText(b.page, '#event-chat-log', /welcome to the club/);
    assert.match(await b.page.getAttribute(
        '#event-chat-log .chat-line a', 'href'), /^\/p\/[A-Za-z0-9_-]+$/);
    assert.equal(await b.page.isVisible('#lobby-chat'), false);
    assert.deepEqual(await axeSerious(b.page), [], 'event page');
    assertClean(t, a, b);
});
