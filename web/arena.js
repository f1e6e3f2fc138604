// arena.js - arena tournaments (PROTOCOL.md "Arena tournaments"): the
// Tournaments page (/tournaments: the events, starting soon, playing now
// and finished, and a form to create one) and an event's page (/t/EID:
// a countdown, join or withdraw, and the standings the server pushes
// while the page is open, by page of 10: only the page shown is
// watched, so 5,000 watchers cost one render per page watched; the
// podium once finished).
// A game of an event shows the event's name with a link back (the
// game page's #game-arena, from the server's arena_game or swiss_game,
// and from the game's state's "event": after a reload, for a
// spectator). Swiss events
// (swiss.js, loaded with the page) list beside them; their page is
// /t/EID?swiss.

import { el } from './ratings.js';

const $ = (id) => document.getElementById(id);

const PAGE_ROWS = 10; /* a standings page's players (PROTOCOL.md) */

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

// events as lichess's Tournaments page lists them: Starting soon,
// Playing now, Finished, each a heading (tag: h2, h3) and a list of
// links (ids PREFIX-open, -running, -finished); item(e) is [href, what].
export function eventGroups(prefix, tag, events, item) {
    const groups = [['open', 'Starting soon', ['open']],
                    ['running', 'Playing now', ['running', 'ending']],
                    ['finished', 'Finished', ['finished']]];
    const parts = [];
    for (const [key, title, statuses] of groups) {
        const some = events.filter((e) => statuses.includes(e.status));
        if (!some.length)
            continue;
        const h = el(tag, null, title);
        h.id = `${prefix}-${key}-title`;
        const ul = el('ul', 'arena-events');
        ul.id = `${prefix}-${key}`;
        ul.setAttribute('aria-labelledby', h.id);
        for (const e of some) {
            const [href, what] = item(e);
            const a = el('a', null, e.name);
            a.href = href;
            const li = el('li');
            li.append(a, el('span', 'arena-meta', ` ${what}`));
            ul.append(li);
        }
        parts.push(h, ul);
    }
    return parts;
}

// The page of rank r (1 up).
export function pageOf(r) {
    return Math.ceil(r / PAGE_ROWS);
}

// msg as page `page` of it when it has no pages (the best 200 of a
// server, or a cluster's copy of an event, that does not page): its
// rows sliced, "page" and "pages" set.
export function pageOfList(msg, page) {
    if (msg.page !== undefined)
        return msg;
    const pages = Math.max(1, Math.ceil(msg.standings.length / PAGE_ROWS));
    return { ...msg, page, pages, standings: msg.standings.slice(
        (page - 1) * PAGE_ROWS, page * PAGE_ROWS) };
}

// A standings' pager (ids PREFIX-page-*): the first, previous, next and
// last pages of msg's (PROTOCOL.md "arena_watch"), and "My page" (mine:
// its number, null: none); watch(P) asks for page P.
export function pager(prefix, msg, mine, watch) {
    const nav = el('nav', 'arena-pager');
    nav.setAttribute('aria-label', 'Standings pages');
    const go = (id, text, label, page) => {
        const b = el('button', null, text);
        b.type = 'button';
        b.id = `${prefix}-page-${id}`;
        if (label)
            b.setAttribute('aria-label', label);
        b.disabled = page === msg.page || page < 1 || page > msg.pages;
        b.addEventListener('click', () => watch(page));
        nav.append(b);
    };
    go('first', '«', 'First page', 1);
    go('prev', '‹', 'Previous page', msg.page - 1);
    const at = el('span', 'arena-page-at', `Page ${msg.page} of ${msg.pages}`);
    at.id = `${prefix}-page-shown`;
    nav.append(at);
    go('next', '›', 'Next page', msg.page + 1);
    go('last', '»', 'Last page', msg.pages);
    if (mine)
        go('mine', 'My page', null, mine);
    return nav;
}

// Puts parts in box, keeping what a push must not take: a password
// being typed (id pw) and the focus of a pager's button.
export function replaceKeepingFocus(box, parts, pw) {
    const typed = pw && $(pw), focused = document.activeElement;
    const focusedId = focused && focused.id;
    box.replaceChildren(...parts);
    if (typed && $(pw)) {
        $(pw).value = typed.value;
        if (focused === typed)
            $(pw).focus();
    } else if (focusedId && /-page-/.test(focusedId) && $(focusedId) &&
               !$(focusedId).disabled) {
        $(focusedId).focus(); /* (paging with the keyboard) */
    }
}

// view.deadline's countdown in box id (" · WHAT m:ss", deadline
// {ms, what}), again each second on view.timer while the box is shown;
// none when view.deadline is null.
export function countdown(view, id) {
    const box = $(id);
    if (!box || !view.deadline) {
        clearInterval(view.timer);
        view.timer = null;
        return;
    }
    const s = Math.max(0, Math.ceil((view.deadline.ms - Date.now()) / 1000));
    box.textContent = ` · ${view.deadline.what} ` +
        `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
    if (!view.timer)
        view.timer = setInterval(() => countdown(view, id), 1000);
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
    let text = parts.length ? `To join: ${parts.join(', ')}.` : '';
    if (c.bots)
        text = `${text} Bot accounts may play.`.trim();
    if (msg.streaks === false)
        text = `${text} No streaks.`.trim();
    return msg.berserk === false ? `${text} No berserk.`.trim() : text;
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
               field(`${kind}-bots`, 'Bot accounts may play',
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
    if ($(`${kind}-bots`).checked)
        c.bots = true;
    if ($(`${kind}-pw`).value)
        c.password = $(`${kind}-pw`).value;
    return c;
}

export class ArenaView {
    // ctx: app.js's (send, me, navigate, toast).
    constructor(ctx) {
        this.ctx = ctx;
        this.section = $('arena');
        this.eid = null;       /* the event page's, or null: the list */
        this.games = new Map(); /* GID -> {event, name}: arena_game */
        this.pageNo = 1;        /* the standings' page watched */
        this.mine = null;       /* our own row (the watch's "me") */
        this.opened = false;    /* the event's first "me" seen */
        this.deadline = null;   /* {ms, what}: the countdown's */
        this.timer = null;
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
                 field('arena-streaks', 'Streaks (on fire after two wins)',
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
            if (!$('arena-streaks').checked)
                msg.streaks = false;
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
        if ((swiss ? null : eid) !== this.eid)
            this.forget();
        this.eid = swiss ? null : eid;
        this.listBox.hidden = this.form.hidden = !!eid;
        this.page.hidden = !this.eid;
        this.title.textContent = eid ? 'Tournament' : 'Tournaments';
        document.title = 'Tournaments · Chess';
        this.refresh();
    }

    // What the page knew of the event shown.
    forget() {
        this.pageNo = 1;
        this.mine = this.deadline = null;
        this.opened = false;
        clearInterval(this.timer);
        this.timer = null;
    }

    hide() {
        if (!this.section.hidden && this.eid)
            this.ctx.send({ t: 'arena_unwatch' }, { t: 'arena_unwatch',
                                                   quiet: true });
        this.section.hidden = true;
        this.eid = null;
        this.forget();
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
            this.watch(this.pageNo);
        else
            this.ctx.send({ t: 'arena_list' }, { t: 'arena_list',
                                                quiet: true });
    }

    // The events by status, as lichess's Tournaments page: starting
    // soon, running (or finishing), finished.
    onList(msg) {
        if (this.section.hidden || this.eid)
            return;
        this.listBox.replaceChildren();
        if (!msg.events.length) {
            this.listBox.append(el('p', 'arena-empty',
                                   'No tournaments yet.'));
            return;
        }
        const item = (e) => [`/t/${e.event}`, `${clockText(e.clock)} · ` +
            `${STATUS[e.status]} · ${timeText(e.start_ms)}–` +
            `${timeText(e.end_ms)} · ${e.players} players`];
        this.listBox.append(el('h2', null, 'Arenas'),
                            ...eventGroups('arena', 'h3', msg.events, item));
    }

    onCreated(msg) {
        this.ctx.navigate(`/t/${msg.arena.event}`);
    }

    // Watches page of the shown event's standings (PROTOCOL.md
    // "arena_watch": 10 players a page, each page pushed to its own
    // watchers).
    watch(page) {
        this.pageNo = page;
        this.ctx.send({ t: 'arena_watch', event: this.eid, page },
                      { t: 'arena_watch' });
    }

    // Our own join or withdrawal was answered: the watch's answer has
    // our own row again (its "me"), whatever page is shown.
    onJoined(msg) {
        if (msg.event === this.eid && !this.section.hidden)
            this.watch(this.pageNo);
    }

    onStandings(msg) {
        msg = pageOfList(msg, this.pageNo);
        if (msg.event !== this.eid || msg.page !== this.pageNo)
            return; /* (a push of the page shown before) */
        const me = this.ctx.me();
        const own = me && msg.standings.find((r) => r.id === me.id);
        if ('me' in msg)
            this.mine = msg.me;
        else if (own)
            this.mine = own;
        // a player opens the event on his own page, as lichess does
        if ('me' in msg && !this.opened) {
            this.opened = true;
            if (this.mine && msg.status !== 'finished' &&
                pageOf(this.mine.rank) !== msg.page) {
                this.watch(pageOf(this.mine.rank));
                return;
            }
        }
        if (msg.page > msg.pages) { /* (players left: fewer pages) */
            this.watch(msg.pages);
            return;
        }
        this.deadline = msg.status === 'open'
            ? { ms: msg.start_ms, what: 'starts in' }
            : msg.status === 'running' ? { ms: msg.end_ms, what: 'ends in' }
                : null;
        const parts = [this.head(msg)];
        if (msg.podium && msg.podium.length)
            parts.push(this.podium(msg.podium));
        if (msg.standings.length)
            parts.push(this.pager(msg), this.table(msg, me));
        else
            parts.push(el('p', 'arena-empty', 'Nobody has joined yet.'));
        replaceKeepingFocus(this.page, parts, 'arena-join-pw');
        this.countdown();
    }

    // The event's name, clock, status, conditions and countdown, and
    // the Join or Withdraw button (from our own row: this.mine).
    head(msg) {
        const head = el('div', 'arena-head');
        const h = el('h2', null, msg.name);
        h.id = 'arena-name-shown';
        const meta = el('p', 'arena-meta',
                        `${clockText(msg.clock)} · ${STATUS[msg.status]} · ` +
                        `${timeText(msg.start_ms)}–${timeText(msg.end_ms)}`);
        meta.id = 'arena-status';
        const left = el('span', 'arena-countdown');
        left.id = 'arena-countdown';
        meta.append(left);
        head.append(h, meta);
        const rules = conditionsText(msg);
        if (rules) {
            const p = el('p', 'arena-meta', rules);
            p.id = 'arena-conditions';
            head.append(p);
        }
        if (msg.status !== 'open' && msg.status !== 'running')
            return head;
        const mine = this.mine, joined = mine && !mine.withdrawn;
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
        if (joined && mine.game) { /* (lichess's "You are playing") */
            const a = el('a', 'button primary', 'Your game');
            a.href = `/g/${mine.game}`;
            a.id = 'arena-my-game';
            head.append(a);
        }
        return head;
    }

    // Time to the start (open) or to the end (running), each second.
    countdown() {
        countdown(this, 'arena-countdown');
    }

    pager(msg) {
        return pager('arena', msg, this.mine && this.mine.rank
            ? pageOf(this.mine.rank) : null, (p) => this.watch(p));
    }

    // The page's rows: rank, player (on fire, withdrawn, his game in
    // play to watch), score, performance and score sheet.
    table(msg, me) {
        const table = el('table', 'lb-table arena-standings');
        table.id = 'arena-standings';
        const cap = el('caption', 'sr-only', 'Standings');
        const thead = el('thead');
        const tr = el('tr');
        for (const c of ['Rank', 'Player', 'Score', 'Perf.', 'Games'])
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
            row.append(el('td', null, String(r.rank)), name,
                       el('td', 'arena-score', String(r.score)),
                       el('td', 'arena-perf',
                          r.sheet.length ? String(r.performance) : '–'),
                       this.sheet(r));
            body.append(row);
        }
        table.append(cap, thead, body);
        return table;
    }

    // Each game's points; ⚔ a berserk game (struck out when it was too
    // short to earn its point); a score on fire (doubled) is marked.
    sheet(r) {
        const sheet = el('td', 'arena-sheet');
        for (const s of r.sheet) {
            if (sheet.childNodes.length)
                sheet.append(' ');
            const x = el(s.berserk === 'invalid' ? 's' : 'span',
                         s.flag === 'double' ? 'arena-double' : null,
                         String(s.points) + (s.berserk ? '⚔' : ''));
            if (s.berserk)
                x.title = s.berserk === 'valid'
                    ? 'berserk: one more point' : 'berserk, too short';
            else if (s.flag === 'double')
                x.title = 'on fire: double points';
            sheet.append(x);
        }
        return sheet;
    }

    // The best three of a finished event (the server's, on any page).
    podium(top) {
        const ol = el('ol', 'arena-podium');
        ol.id = 'arena-podium';
        ol.setAttribute('aria-label', 'Podium');
        for (const r of top) {
            const li = el('li', null, r.name);
            li.append(el('span', 'arena-meta',
                         ` ${r.score} points · performance ` +
                         `${r.performance}`));
            ol.append(li);
        }
        return ol;
    }

    // A game of an event starts: the game page links back to it.
    onGame(msg) {
        this.games.set(msg.game, { event: msg.event, name: msg.name,
                                   swiss: msg.swiss,
                                   berserk: !msg.swiss && !!msg.berserk });
        this.showOnGame(msg.game);
    }

    // The game page drew game gid as g, whose state names its event
    // (g.event): linked as onGame does, once; then renderGame.
    onGameState(gid, g) {
        const ev = g.event, a = this.games.get(gid);
        if (a && a.event === ev.id) {
            this.renderGame(gid, g);
            return;
        }
        this.games.set(gid, { event: ev.id, name: ev.name,
                              swiss: ev.kind === 'swiss',
                              berserk: ev.kind === 'arena' && !!ev.berserk });
        if (this.ctx.shownGame() === gid)
            this.showOnGame(gid);
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
