// arena.js - arena tournaments (PROTOCOL.md "Arena tournaments"): the
// Tournaments page (/tournaments: the events, open, running and finished,
// and a form to create one) and an event's page (/t/EID: join or
// withdraw, and the standings the server pushes while the page is open).
// A game of an event shows the event's name with a link back (the
// game page's #game-arena, from the server's arena_game). Swiss events
// (swiss.js, loaded with the page) list beside them; their page is
// /t/EID?swiss.

import { el } from './ratings.js';

const $ = (id) => document.getElementById(id);

const STATUS = { open: 'Starts soon', running: 'Running',
                 ending: 'Finishing its last games', finished: 'Finished' };

function clockText(c) {
    return `${Math.round(c.initial_s / 60 * 10) / 10}+${c.increment_s}`;
}

function timeText(ms) {
    return new Date(ms).toLocaleTimeString([], { hour: '2-digit',
                                                 minute: '2-digit' });
}

// A tournament's creation form (kind: arena or swiss), empty, titled.
export function createForm(kind, title) {
    const f = el('form', 'arena-create');
    f.id = `${kind}-create`;
    f.noValidate = true;
    const h = el('h2', null, title);
    h.id = `${kind}-create-title`;
    f.setAttribute('aria-labelledby', h.id);
    f.append(h);
    return f;
}

// A labelled input of a creation form.
export function field(id, label, attrs) {
    const p = el('p', 'arena-field');
    const l = el('label', null, label);
    l.htmlFor = id;
    const i = el('input');
    i.id = id;
    Object.assign(i, attrs);
    p.append(l, i);
    return p;
}

// What an event asks of its players, in words ('' when nothing).
export function conditionsText(msg) {
    const c = msg.conditions || {}, parts = [];
    if (c.rating_min && c.rating_max)
        parts.push(`rated ${c.rating_min}–${c.rating_max}`);
    else if (c.rating_min)
        parts.push(`rated ${c.rating_min} or more`);
    else if (c.rating_max)
        parts.push(`rated ${c.rating_max} or less`);
    if (c.rated_games_min)
        parts.push(`${c.rated_games_min} rated games or more`);
    if (c.accounts_only)
        parts.push('accounts only');
    if (c.password)
        parts.push('a password');
    const entry = parts.length ? `To join: ${parts.join(', ')}.` : '';
    return msg.berserk === false ? `${entry} No berserk.`.trim() : entry;
}

// A creation form's entry conditions (PROTOCOL.md "Entry conditions"),
// each optional; kind: arena or swiss (the fields' ids).
export function conditionsFields(kind) {
    const box = el('fieldset', 'arena-conditions');
    box.append(el('legend', null, 'Entry conditions (optional)'),
               field(`${kind}-rmin`, 'Minimum rating',
                     { type: 'number', min: 1, max: 4000 }),
               field(`${kind}-rmax`, 'Maximum rating',
                     { type: 'number', min: 1, max: 4000 }),
               field(`${kind}-games`, 'Minimum rated games',
                     { type: 'number', min: 1, max: 10000 }),
               field(`${kind}-accounts`, 'Accounts only',
                     { type: 'checkbox' }),
               field(`${kind}-pw`, 'Password (letters, digits, _ and -)',
                     { type: 'text', maxLength: 32, autocomplete: 'off' }));
    return box;
}

// The conditions conditionsFields(kind) holds, as create's "conditions".
export function entryConditions(kind) {
    const c = {};
    const num = (id, key) => {
        if ($(`${kind}-${id}`).value !== '')
            c[key] = Number($(`${kind}-${id}`).value);
    };
    num('rmin', 'rating_min');
    num('rmax', 'rating_max');
    num('games', 'rated_games_min');
    if ($(`${kind}-accounts`).checked)
        c.accounts_only = true;
    if ($(`${kind}-pw`).value)
        c.password = $(`${kind}-pw`).value;
    return c;
}

// box's children become parts; the input id (the join's password) keeps
// what was typed in it, and the focus (a push while it is typed).
export function replaceKeeping(box, parts, id) {
    const typed = $(id), focused = document.activeElement;
    box.replaceChildren(...parts);
    if (typed && $(id)) {
        $(id).value = typed.value;
        if (focused === typed)
            $(id).focus();
    }
}

export class ArenaView {
    // ctx: app.js's (send, me, navigate, toast).
    constructor(ctx) {
        this.ctx = ctx;
        this.section = $('arena');
        this.eid = null;       /* the event page's, or null: the list */
        this.games = new Map(); /* GID -> {event, name}: arena_game */
        this.build();
        this.swiss = null;
        this.swissLoading = import('./swiss.js').then((m) => {
            this.swiss = new m.SwissView(ctx, this.section);
            return this.swiss;
        });
    }

    withSwiss(run) {
        this.swissLoading.then(run);
    }

    // A swiss_* message from the server (app.js).
    onSwiss(msg) {
        if (msg.t === 'swiss_game')
            this.onGame({ ...msg, swiss: true });
        this.withSwiss((s) => s.onMessage(msg));
    }

    build() {
        this.title = el('h1', null, 'Tournaments');
        this.title.id = 'arena-title';
        this.listBox = el('div', 'arena-list');
        this.listBox.id = 'arena-list';
        this.form = this.buildForm();
        this.page = el('div', 'arena-event');
        this.page.id = 'arena-event';
        this.section.append(this.title, this.listBox, this.form, this.page);
    }

    buildForm() {
        const f = createForm('arena', 'Create an arena');
        const go = el('button', null, 'Create');
        go.type = 'submit';
        go.id = 'arena-create-btn';
        f.append(field('arena-name', 'Name (letters, digits, _ and -)',
                       { type: 'text', maxLength: 20, value: 'Arena',
                         pattern: '[A-Za-z0-9_-]{1,20}' }),
                 field('arena-minutes', 'Clock: minutes each',
                       { type: 'number', min: 1, max: 180, value: 3 }),
                 field('arena-inc', 'Increment (seconds)',
                       { type: 'number', min: 0, max: 60, value: 2 }),
                 field('arena-duration', 'Duration (minutes)',
                       { type: 'number', min: 1, max: 1440, value: 30 }),
                 field('arena-start', 'Starts in (minutes)',
                       { type: 'number', min: 0, max: 10080, value: 5 }),
                 field('arena-berserk', 'Berserk allowed',
                       { type: 'checkbox', checked: true }),
                 conditionsFields('arena'),
                 go);
        f.addEventListener('submit', (e) => {
            e.preventDefault();
            const n = (id) => Number($(id).value);
            const msg = {
                t: 'arena_create', name: $('arena-name').value,
                clock: { type: 'fischer',
                         initial_s: Math.round(n('arena-minutes') * 60),
                         increment_s: n('arena-inc') },
                duration_s: Math.round(n('arena-duration') * 60),
                start_in_s: Math.round(n('arena-start') * 60),
            };
            if (!$('arena-berserk').checked)
                msg.berserk = false;
            const cond = entryConditions('arena');
            if (Object.keys(cond).length)
                msg.conditions = cond;
            this.ctx.send(msg, { t: 'arena_create' });
        });
        return f;
    }

    // The list (eid null) or an event's page.
    show(eid) {
        const swiss = !!eid && new URLSearchParams(location.search)
            .has('swiss');
        this.section.hidden = false;
        if (this.eid && this.eid !== eid)
            this.ctx.send({ t: 'arena_unwatch' }, { t: 'arena_unwatch',
                                                   quiet: true });
        const sid = swiss ? eid : null, hideSwiss = !!eid && !swiss;
        this.withSwiss((s) => s.show(sid, hideSwiss));
        this.eid = swiss ? null : eid;
        this.listBox.hidden = this.form.hidden = !!eid;
        this.page.hidden = !this.eid;
        this.title.textContent = eid ? 'Tournament' : 'Tournaments';
        document.title = 'Tournaments · Chess';
        this.refresh();
    }

    hide() {
        if (!this.section.hidden && this.eid)
            this.ctx.send({ t: 'arena_unwatch' }, { t: 'arena_unwatch',
                                                   quiet: true });
        this.section.hidden = true;
        this.eid = null;
        if (this.swiss)
            this.swiss.hide();
    }

    // Asks again for what the page shows (also after a reconnection).
    refresh() {
        if (this.section.hidden)
            return;
        if (this.swiss)
            this.swiss.refresh();
        if (this.eid)
            this.ctx.send({ t: 'arena_watch', event: this.eid },
                          { t: 'arena_watch' });
        else
            this.ctx.send({ t: 'arena_list' }, { t: 'arena_list',
                                                quiet: true });
    }

    onList(msg) {
        if (this.section.hidden || this.eid)
            return;
        this.listBox.replaceChildren();
        if (!msg.events.length) {
            this.listBox.append(el('p', 'arena-empty',
                                   'No tournaments yet.'));
            return;
        }
        const ul = el('ul', 'arena-events');
        for (const e of msg.events) {
            const li = el('li');
            const a = el('a', null, e.name);
            a.href = `/t/${e.event}`;
            li.append(a, el('span', 'arena-meta',
                            ` ${clockText(e.clock)} · ${STATUS[e.status]}` +
                            ` · ${timeText(e.start_ms)}–` +
                            `${timeText(e.end_ms)} · ${e.players} players`));
            ul.append(li);
        }
        this.listBox.append(ul);
    }

    onCreated(msg) {
        this.ctx.navigate(`/t/${msg.arena.event}`);
    }

    onStandings(msg) {
        if (msg.event !== this.eid)
            return;
        const me = this.ctx.me();
        const mine = me && msg.standings.find((r) => r.id === me.id);
        const head = el('div', 'arena-head');
        const h = el('h2', null, msg.name);
        h.id = 'arena-name-shown';
        const meta = el('p', 'arena-meta',
                        `${clockText(msg.clock)} · ${STATUS[msg.status]} · ` +
                        `${timeText(msg.start_ms)}–${timeText(msg.end_ms)}`);
        meta.id = 'arena-status';
        head.append(h, meta);
        const rules = conditionsText(msg);
        if (rules) {
            const p = el('p', 'arena-meta', rules);
            p.id = 'arena-conditions';
            head.append(p);
        }
        if (msg.status === 'open' || msg.status === 'running') {
            const joined = mine && !mine.withdrawn;
            // (a password is asked of a first join only)
            const pw = !mine && msg.conditions && msg.conditions.password
                ? field('arena-join-pw', 'Password',
                        { type: 'text', maxLength: 32, autocomplete: 'off' })
                : null;
            const b = el('button', joined ? null : 'primary',
                         joined ? 'Withdraw' : 'Join');
            b.type = 'button';
            b.id = 'arena-join-btn';
            b.addEventListener('click', () => {
                const m = { t: joined ? 'arena_withdraw' : 'arena_join',
                            event: msg.event };
                if (pw && $('arena-join-pw').value)
                    m.password = $('arena-join-pw').value;
                this.ctx.send(m, { t: 'arena_join' });
            });
            if (pw)
                head.append(pw);
            head.append(b);
        }
        const table = el('table', 'lb-table arena-standings');
        table.id = 'arena-standings';
        const cap = el('caption', 'sr-only', 'Standings');
        const thead = el('thead');
        const tr = el('tr');
        for (const c of ['Rank', 'Player', 'Score', 'Games'])
            tr.append(Object.assign(el('th', null, c), { scope: 'col' }));
        thead.append(tr);
        const body = el('tbody');
        for (const r of msg.standings) {
            const row = el('tr', me && r.id === me.id ? 'mine' : null);
            const name = el('td', null, r.name + (r.fire ? ' 🔥' : '') +
                            (r.withdrawn ? ' (withdrawn)' : ''));
            if (r.game) {
                const a = el('a', 'arena-live', ' playing');
                a.href = `/g/${r.game}`;
                name.append(a);
            }
            // each game's points; ⚔ a berserk game (struck out when it
            // was too short to earn its point)
            const sheet = el('td', 'arena-sheet');
            for (const s of r.sheet) {
                if (sheet.childNodes.length)
                    sheet.append(' ');
                const x = el(s.berserk === 'invalid' ? 's' : 'span', null,
                             String(s.points) + (s.berserk ? '⚔' : ''));
                if (s.berserk)
                    x.title = s.berserk === 'valid'
                        ? 'berserk: one more point' : 'berserk, too short';
                sheet.append(x);
            }
            row.append(el('td', null, String(r.rank)), name,
                       el('td', 'arena-score', String(r.score)), sheet);
            body.append(row);
        }
        table.append(cap, thead, body);
        const parts = [head];
        parts.push(msg.standings.length ? table
            : el('p', 'arena-empty', 'Nobody has joined yet.'));
        replaceKeeping(this.page, parts, 'arena-join-pw');
    }

    // A game of an event starts: the game page links back to it.
    onGame(msg) {
        this.games.set(msg.game, { event: msg.event, name: msg.name,
                                   swiss: msg.swiss,
                                   berserk: !msg.swiss && !!msg.berserk });
        this.showOnGame(msg.game);
    }

    showOnGame(gid) {
        const box = $('game-arena');
        const a = this.games.get(gid);
        box.hidden = !a;
        if (!a)
            return;
        const link = el('a', null, a.name);
        link.href = `/t/${a.event}${a.swiss ? '?swiss' : ''}`;
        const marks = el('span', 'berserk-marks');
        marks.id = 'game-berserk';
        const b = el('button', 'berserk-btn', 'Berserk');
        b.type = 'button';
        b.id = 'berserk-btn';
        b.hidden = true;
        b.title = 'Half your time and no increment, for one more point ' +
            'if you win in 7 moves or more';
        b.addEventListener('click', () => this.ctx.send(
            { t: 'berserk', game: gid }, { t: 'berserk', game: gid }));
        box.replaceChildren('Tournament: ', link, marks, ' ', b);
        const shown = this.ctx.gameState(gid);
        if (shown)
            this.renderGame(gid, shown);
    }

    // The game page drew game gid as g: who went berserk, and the
    // Berserk button for a player who may still (before his first move,
    // once, where the event allows it).
    renderGame(gid, g) {
        const a = this.games.get(gid), marks = $('game-berserk'),
            b = $('berserk-btn');
        if (!a || !marks || !b || !g.berserk)
            return;
        const who = ['white', 'black'].filter((c) => g.berserk[c]);
        marks.textContent = who.length ? ` · ⚔ ${who.map((c) =>
            c[0].toUpperCase() + c.slice(1)).join(' and ')} berserk` : '';
        b.hidden = !(a.berserk && g.you && g.status === 'started' &&
                     !g.berserk[g.you] &&
                     g.ply < (g.you === 'white' ? 1 : 2));
    }

    onError(req, msg) {
        if (this.swiss)
            this.swiss.onError(req, msg);
        if (req && req.t === 'arena_watch' && msg.code === 'no_such_event')
            this.page.replaceChildren(el('p', 'arena-empty',
                                         'No tournament has that address.'));
    }
}
