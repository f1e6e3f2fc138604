// mod.js - the moderation page (/mod), for moderators (PROTOCOL.md
// section 4, "Moderation"): a maintenance to announce or cancel; the
// report queue, the worst first, with each entry's texts, and the actions
// on its player (warn, mute for a time, unmute, close the reports); a
// game in play to end (a result or an abort); a
// player looked up (from the queue or by name): its recent games, chat
// lines and the moderators' past actions on it, with every action and
// its reversal. Loaded by app.js the first time /mod is opened: a visit
// that never opens it does not fetch it.

const MUTES = [[600, '10 minutes'], [3600, '1 hour'], [86400, '1 day']];
const SOON = [[600, 'in 10 minutes'], [1800, 'in 30 minutes'],
              [3600, 'in 1 hour']];
// The player panel's actions, each beside its reversal.
const ACTIONS = [['warn', 'Warn'], ['mute', 'Mute'], ['unmute', 'Unmute'],
                 ['engine', 'Mark as engine'], ['unengine', 'Unmark engine'],
                 ['close_account', 'Close account'],
                 ['reopen_account', 'Reopen account'],
                 ['disconnect', 'Disconnect']];

function el(tag, props, ...kids) {
    const e = document.createElement(tag);
    Object.assign(e, props || {});
    e.append(...kids);
    return e;
}

function when(ms) {
    return new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

export class ModView {
    // ctx: app.js's (send, me, online).
    constructor(ctx) {
        this.ctx = ctx;
        this.section = el('section', { id: 'mod', className: 'card mod' });
        this.section.setAttribute('aria-labelledby', 'mod-title');
        this.status = el('p', { id: 'mod-status' });
        this.status.setAttribute('role', 'status');
        this.status.setAttribute('aria-live', 'polite');
        this.list = el('ol', { id: 'mod-queue', className: 'mod-queue' });
        const refresh = el('button', { type: 'button', id: 'mod-refresh',
                                       textContent: 'Refresh' });
        refresh.addEventListener('click', () => this.ask());
        this.player = el('div', { id: 'mod-player', className: 'mod-player' });
        this.section.append(el('h1', { id: 'mod-title',
                                       textContent: 'Moderation' }),
                            this.status, this.maintenanceForm(),
                            this.gameForm(), this.lookupForm(), this.player,
                            el('h2', { textContent: 'Reports' }),
                            refresh, this.list);
        this.section.hidden = true;
        document.getElementById('main').append(this.section);
    }

    show() {
        this.section.hidden = false;
        this.ask();
    }

    hide() {
        this.section.hidden = true;
    }

    ask() {
        const me = this.ctx.me();
        if (!me || !this.ctx.online()) {
            this.say('Connecting…'); // (asked again at the welcome)
            return;
        }
        if (!me.account) {
            this.say('Moderation is for moderators: log in first.');
            return;
        }
        this.ctx.send({ t: 'mod_reports' });
    }

    say(text) {
        this.status.textContent = text;
    }

    maintenanceForm() {
        const text = el('input', { type: 'text', id: 'mod-maint-text',
                                   maxLength: 140 });
        const when = el('select', { id: 'mod-maint-in' });
        for (const [s, words] of SOON)
            when.append(el('option', { value: String(s),
                                       textContent: words }));
        const go = el('button', { type: 'button', id: 'mod-maint-send',
                                  textContent: 'Announce' });
        const cancel = el('button', { type: 'button', id: 'mod-maint-cancel',
                                      textContent: 'Cancel it' });
        const send = (msg) => {
            if (!text.value.trim()) {
                this.say('Say what first.');
                text.focus();
                return;
            }
            this.ctx.send(Object.assign(msg, { t: 'mod_maintenance',
                                               text: text.value.trim() }));
        };
        go.addEventListener('click',
                            () => send({ start_in_s: Number(when.value) }));
        cancel.addEventListener('click', () => send({}));
        return el('fieldset', { className: 'mod-maint' },
            el('legend', { textContent: 'Maintenance (a banner for all)' }),
            el('label', { htmlFor: text.id, textContent: 'Text' }), text,
            el('label', { htmlFor: when.id, textContent: 'When' }), when,
            el('div', { className: 'row' }, go, cancel));
    }

    // A game in play ended by a moderator: a result, or an abort.
    gameForm() {
        const gid = el('input', { type: 'text', id: 'mod-game-id',
                                  maxLength: 200 }); // (a link too)
        const result = el('select', { id: 'mod-game-result' });
        for (const [r, words] of [['1-0', 'White wins'], ['0-1', 'Black wins'],
                                  ['1/2-1/2', 'Draw'], ['*', 'Abort']])
            result.append(el('option', { value: r, textContent: words }));
        const why = el('input', { type: 'text', id: 'mod-game-why',
                                  maxLength: 500 });
        const go = el('button', { type: 'button', id: 'mod-game-end',
                                  textContent: 'End the game' });
        go.addEventListener('click', () => {
            const game = gid.value.trim().replace(/^.*\/g\//, '');
            if (!game || !why.value.trim()) {
                this.say('Name the game and say why first.');
                return;
            }
            this.ctx.send({ t: 'mod_game', game, result: result.value,
                            text: why.value.trim() });
        });
        return el('fieldset', { className: 'mod-game' },
            el('legend', { textContent: 'End a game in play' }),
            el('label', { htmlFor: gid.id, textContent: 'Game (id or link)' }),
            gid,
            el('label', { htmlFor: result.id, textContent: 'Result' }), result,
            el('label', { htmlFor: why.id, textContent: 'Why' }), why, go);
    }

    lookupForm() {
        const name = el('input', { type: 'text', id: 'mod-lookup-name',
                                   maxLength: 32 });
        const go = el('button', { type: 'submit', id: 'mod-lookup',
                                  textContent: 'Look up' });
        const f = el('form', { className: 'row' },
            el('label', { htmlFor: name.id, textContent: 'Player' }), name,
            go);
        f.addEventListener('submit', (e) => {
            e.preventDefault();
            if (name.value.trim())
                this.lookup(name.value.trim());
        });
        return f;
    }

    lookup(who) {
        this.looking = who;
        this.ctx.send({ t: 'mod_player', to: who });
    }

    // mod_player: the panel of one player, with its recent games read
    // from the HTTP API.
    renderPlayer(r) {
        const games = el('ul', { id: 'mod-games' });
        fetch(`/api/players/${encodeURIComponent(r.pid)}/games?limit=10`)
            .then((res) => res.json()).then((j) => {
                for (const g of j.games || [])
                    games.append(el('li', null, el('a', {
                        href: `/g/${g.game}`,
                        textContent: `${g.white.name} – ${g.black.name}` +
                            ` ${g.result} (${g.reason}) ${when(g.ended_ms)}`,
                    })));
                if (!games.children.length)
                    games.append(el('li', { textContent: 'No games.' }));
            }).catch(() => {});
        const why = el('input', { type: 'text', maxLength: 500,
                                  id: 'mod-p-why' });
        const said = () => {
            if (why.value.trim())
                return why.value.trim();
            this.say('Say why first.');
            why.focus();
            return '';
        };
        const chat = el('ul', { id: 'mod-chat' });
        for (const c of r.chat) {
            const del = el('button', { type: 'button', textContent: 'Delete',
                                       className: 'mod-p-chat-delete' });
            del.addEventListener('click', () => {
                const text = said();
                if (!text)
                    return;
                this.looking = r.pid;
                this.ctx.send({ t: 'mod_chat_delete', game: c.game,
                                event: c.event, room: c.room, to: r.pid,
                                at: c.at, text });
            });
            // a game's room links to the game, an event's to the event
            const where = c.game ? el('a', { href: `/g/${c.game}`,
                                             textContent: `${c.room} room` })
                : c.event ? el('a', { href: `/t/${c.event}`,
                                      textContent: 'event room' })
                    : 'lobby room';
            chat.append(el('li', null, `${when(c.at)} `, where,
                           ': ', el('q', { textContent: c.text }), ' ', del));
        }
        const past = el('ul', { id: 'mod-history' });
        for (const a of r.actions)
            past.append(el('li', { textContent: `${when(a.at)} ${a.by}: ` +
                `${a.action}` + (a.until ? ` until ${when(a.until)}` : '') +
                ` (${a.text})` }));
        const marks = [r.muted_until && `muted until ${when(r.muted_until)}`,
                       r.engine && 'marked as engine',
                       r.closed && 'closed'].filter(Boolean);
        const mute = el('select', { id: 'mod-p-mute' });
        for (const [s, words] of MUTES)
            mute.append(el('option', { value: String(s),
                                       textContent: words }));
        const buttons = ACTIONS.map(([action, words]) => {
            const b = el('button', { type: 'button', textContent: words,
                                     className: `mod-p-${action}` });
            b.addEventListener('click', () => {
                const text = said();
                if (!text)
                    return;
                const msg = { t: 'mod_action', to: r.pid, action, text };
                if (action === 'mute')
                    msg.duration_s = Number(mute.value);
                this.looking = r.pid;
                this.ctx.send(msg);
            });
            return b;
        });
        this.player.replaceChildren(
            el('h2', null, el('a', { href: `/p/${r.pid}`,
                                     textContent: r.name }),
               marks.length ? ` · ${marks.join(' · ')}` : ''),
            el('h3', { textContent: 'Recent games' }), games,
            el('h3', { textContent: 'Recent chat' }), chat,
            el('h3', { textContent: 'Moderators\' actions' }), past,
            el('label', { htmlFor: why.id, textContent: 'Why' }), why,
            el('label', { htmlFor: mute.id, textContent: 'Mute for' }), mute,
            el('div', { className: 'row wrap' }, ...buttons));
        if (!r.chat.length)
            chat.append(el('li', { textContent: 'No chat lines.' }));
        if (!r.actions.length)
            past.append(el('li', { textContent: 'None yet.' }));
    }

    // A message of app.js's: mod_reports, mod_done, or an error of ours.
    onMessage(msg) {
        if (msg.t === 'mod_reports')
            this.render(msg.reports);
        else if (msg.t === 'mod_player')
            this.renderPlayer(msg);
        else if (msg.t === 'mod_done') {
            this.say(`Done: ${msg.action}${msg.name ? ' ' + msg.name : ''}` +
                     (msg.until ? ` until ${when(msg.until)}` : '') + '.');
            // (read again only what changed: each read is one of the
            // moderator's commands, 10 at once then 30 a minute)
            if (msg.action === 'close')
                this.ask();
            else if (this.looking && msg.pid)
                this.lookup(this.looking);
        } else if (msg.t === 'error')
            this.say(msg.msg);
    }

    render(reports) {
        this.list.replaceChildren();
        if (!reports.length) // (in the list: the status keeps what was done)
            this.list.append(el('li', { textContent: 'No open reports.' }));
        for (const r of reports)
            this.list.append(this.entry(r));
    }

    entry(r) {
        const texts = el('ul', { className: 'mod-texts' });
        for (const t of r.texts || [])
            texts.append(el('li', null, `${t.by} (${when(t.at)}): `,
                            el('q', { textContent: t.text })));
        const why = el('input', { type: 'text', maxLength: 500,
                                  required: true,
                                  id: `mod-why-${r.pid}-${r.reason}` });
        const mute = el('select', { id: `mod-mute-${r.pid}-${r.reason}` });
        for (const [s, words] of MUTES)
            mute.append(el('option', { value: String(s),
                                       textContent: words }));
        const act = (action) => {
            if (!why.value.trim()) {
                this.say('Say why first.');
                why.focus();
                return;
            }
            const msg = { t: 'mod_action', to: r.pid, action,
                          text: why.value.trim() };
            if (action === 'mute')
                msg.duration_s = Number(mute.value);
            if (action === 'close')
                msg.reason = r.reason;
            this.ctx.send(msg);
        };
        const button = (action, words) => {
            const b = el('button', { type: 'button', textContent: words,
                                     className: `mod-${action}` });
            b.addEventListener('click', () => act(action));
            return b;
        };
        const link = el('a', { href: `/p/${r.pid}`, textContent: r.name });
        const more = el('button', { type: 'button', textContent: 'Player',
                                    className: 'mod-lookup-entry' });
        more.addEventListener('click', () => this.lookup(r.pid));
        return el('li', { className: 'mod-entry' },
            el('h2', null, link, ` · ${r.reason} · score ${r.score}` +
                ` · ${r.atoms} report${r.atoms === 1 ? '' : 's'}`),
            texts,
            el('label', { htmlFor: why.id, textContent: 'Why' }), why,
            el('label', { htmlFor: mute.id, textContent: 'Mute for' }), mute,
            el('div', { className: 'row' }, button('warn', 'Warn'),
               button('mute', 'Mute'), button('unmute', 'Unmute'),
               button('close', 'Close the reports'), more));
    }
}
