// swiss.js - Swiss tournaments (PROTOCOL.md "Swiss tournaments") on the
// Tournaments page: their list and a form to create one (with its rounds),
// and an event's page (/t/EID?swiss: join or withdraw, the creator's
// start (or early start), pause and resume, the entry conditions (a
// password asked at a first join), the last round's pairings, the
// standings with their tie-breaks and score sheets by page of 10
// (arena.js's pager: only the page shown is watched), and the TRF).
// Loaded by arena.js when the Tournaments page is first opened.

import {
    conditionsFields, conditionsText, countdown, createForm,
    entryConditions, eventGroups, field, pageOf, pageOfList, pager,
    replaceKeepingFocus,
} from './arena.js';
import { el } from './ratings.js';

const $ = (id) => document.getElementById(id);

const STATUS = { open: 'Starts soon', running: 'Running',
                 finished: 'Finished' };

function clockText(c) {
    return `${Math.round(c.initial_s / 60 * 10) / 10}+${c.increment_s}`;
}

export class SwissView {
    // ctx: app.js's (send, me, navigate, toast); section: arena.js's.
    constructor(ctx, section) {
        this.ctx = ctx;
        this.eid = null;
        this.listBox = el('div', 'arena-list');
        this.listBox.id = 'swiss-list';
        this.form = this.buildForm();
        this.page = el('div', 'arena-event');
        this.page.id = 'swiss-event';
        section.append(this.listBox, this.form, this.page);
        this.games = new Map(); /* GID -> {event, name, round} */
        this.pageNo = 1;     /* the standings' page watched */
        this.mine = null;    /* our own row (the watch's "me") */
        this.opened = false; /* the event's first "me" seen */
        this.deadline = null; /* {ms, what}: the next round's countdown */
        this.timer = null;
    }

    buildForm() {
        const f = createForm('swiss', 'Create a Swiss');
        const go = el('button', null, 'Create');
        go.type = 'submit';
        go.id = 'swiss-create-btn';
        f.append(field('swiss-name', 'Name (letters, digits, _ and -)',
                       { type: 'text', maxLength: 20, value: 'Swiss',
                         pattern: '[A-Za-z0-9_-]{1,20}' }),
                 field('swiss-minutes', 'Clock: minutes each',
                       { type: 'number', min: 1, max: 180, value: 5 }),
                 field('swiss-inc', 'Increment (seconds)',
                       { type: 'number', min: 0, max: 60, value: 3 }),
                 field('swiss-rounds', 'Rounds',
                       { type: 'number', min: 1, max: 30, value: 5 }),
                 field('swiss-interval', 'Seconds between rounds',
                       { type: 'number', min: 0, max: 3600, value: 30 }),
                 field('swiss-start', 'Starts in (minutes; empty: when ' +
                       'you start it)',
                       { type: 'number', min: 0, max: 10080, value: '' }),
                 conditionsFields('swiss'),
                 go);
        f.addEventListener('submit', (e) => {
            e.preventDefault();
            const n = (id) => Number($(id).value);
            const msg = {
                t: 'swiss_create', name: $('swiss-name').value,
                clock: { type: 'fischer',
                         initial_s: Math.round(n('swiss-minutes') * 60),
                         increment_s: n('swiss-inc') },
                rounds: n('swiss-rounds'), interval_s: n('swiss-interval'),
            };
            if ($('swiss-start').value !== '')
                msg.start_in_s = Math.round(n('swiss-start') * 60);
            const cond = entryConditions('swiss');
            if (Object.keys(cond).length)
                msg.conditions = cond;
            this.ctx.send(msg, { t: 'swiss_create' });
        });
        return f;
    }

    // The list (eid null; arena.js shows its own beside it), an event's
    // page (eid), or nothing (hidden: an arena's page).
    show(eid, hidden) {
        if (this.eid && this.eid !== eid)
            this.ctx.send({ t: 'swiss_unwatch' }, { t: 'swiss_unwatch',
                                                   quiet: true });
        if ((hidden ? null : eid) !== this.eid) {
            this.pageNo = 1;
            this.mine = this.deadline = null;
            this.opened = false;
            countdown(this, 'swiss-countdown'); /* (stops it) */
        }
        this.eid = hidden ? null : eid;
        this.listBox.hidden = this.form.hidden = hidden || !!eid;
        this.page.hidden = hidden || !eid;
        this.refresh();
    }

    hide() {
        if (this.eid)
            this.ctx.send({ t: 'swiss_unwatch' }, { t: 'swiss_unwatch',
                                                   quiet: true });
        this.eid = this.deadline = null;
        countdown(this, 'swiss-countdown'); /* (stops it) */
    }

    // Watches page of the shown event's standings (PROTOCOL.md
    // "swiss_watch").
    watch(page) {
        this.pageNo = page;
        this.ctx.send({ t: 'swiss_watch', event: this.eid, page },
                      { t: 'swiss_watch' });
    }

    refresh() {
        if (this.eid)
            this.watch(this.pageNo);
        else if (!this.listBox.hidden)
            this.ctx.send({ t: 'swiss_list' }, { t: 'swiss_list',
                                                quiet: true });
    }

    onMessage(msg) {
        if (msg.t === 'swiss_list')
            this.onList(msg);
        else if (msg.t === 'swiss_created')
            this.ctx.navigate(`/t/${msg.swiss.event}?swiss`);
        else if (msg.t === 'swiss_standings')
            this.onStandings(msg);
        else if (msg.t === 'swiss_game')
            this.games.set(msg.game, msg);
        else if ((msg.t === 'swiss_joined' || msg.t === 'swiss_withdrawn') &&
                 msg.event === this.eid)
            this.watch(this.pageNo); /* (the answer has our row) */
    }

    onList(msg) {
        if (this.listBox.hidden)
            return;
        const h = el('h2', null, 'Swiss tournaments');
        if (!msg.events.length) {
            this.listBox.replaceChildren(h, el('p', 'arena-empty',
                                               'No Swiss tournaments yet.'));
            return;
        }
        const item = (e) => [`/t/${e.event}?swiss`,
                             `${clockText(e.clock)} · ${STATUS[e.status]} · ` +
                             `round ${e.round} of ${e.rounds} · ` +
                             `${e.players} players`];
        this.listBox.replaceChildren(
            h, ...eventGroups('swiss', 'h3', msg.events, item));
    }

    head(msg) {
        const me = this.ctx.me(), mine = this.mine;
        const head = el('div', 'arena-head');
        const h = el('h2', null, msg.name);
        h.id = 'swiss-name-shown';
        const meta = el('p', 'arena-meta',
                        `Swiss · ${clockText(msg.clock)} · ` +
                        `${STATUS[msg.status]} · round ${msg.round} of ` +
                        `${msg.rounds}` + (msg.paused ? ' · paused' : ''));
        meta.id = 'swiss-status';
        const left = el('span', 'arena-countdown');
        left.id = 'swiss-countdown';
        meta.append(left);
        head.append(h, meta);
        const rules = conditionsText(msg);
        if (rules)
            head.append(Object.assign(el('p', 'arena-meta', rules),
                                      { id: 'swiss-conditions' }));
        // our own board of the round, while it is played
        const board = me && msg.pairings.find((b) => b.game && !b.result &&
            (b.white === me.id || b.black === me.id));
        if (board) {
            const a = el('a', 'button primary', 'Your game');
            a.href = `/g/${board.game}`;
            a.id = 'swiss-my-game';
            head.append(a);
        }
        const button = (id, text, cls, send) => {
            const b = el('button', cls, text);
            b.type = 'button';
            b.id = id;
            b.addEventListener('click', send);
            head.append(b);
        };
        if (msg.status !== 'finished' && msg.round < msg.rounds) {
            const joined = mine && !mine.withdrawn;
            // (a password is asked of a first join only)
            if (!mine && msg.conditions && msg.conditions.password)
                head.append(field('swiss-join-pw', 'Password',
                                  { type: 'text', maxLength: 32,
                                    autocomplete: 'off' }));
            button('swiss-join-btn', joined ? 'Withdraw' : 'Join',
                   joined ? null : 'primary', () => {
                       const m = { t: joined ? 'swiss_withdraw'
                                             : 'swiss_join',
                                   event: msg.event };
                       const pw = $('swiss-join-pw');
                       if (pw && pw.value)
                           m.password = pw.value;
                       this.ctx.send(m, { t: 'swiss_join' });
                   });
        }
        const organiser = me && msg.creator === me.id &&
              msg.status !== 'finished';
        if (organiser && msg.status === 'open')
            button('swiss-start-btn',
                   msg.start_ms === null ? 'Start' : 'Start now', 'primary',
                   () => this.ctx.send({ t: 'swiss_start', event: msg.event },
                                       { t: 'swiss_start' }));
        // the organiser's pause: no new round starts until resumed
        if (organiser) {
            const t = msg.paused ? 'swiss_resume' : 'swiss_pause';
            button('swiss-pause-btn', msg.paused ? 'Resume' : 'Pause', null,
                   () => this.ctx.send({ t, event: msg.event }, { t }));
        }
        const trf = el('a', null, 'TRF');
        trf.href = `/api/swiss/${msg.event}/trf`;
        trf.id = 'swiss-trf';
        trf.download = `${msg.name}.trf`;
        head.append(trf);
        return head;
    }

    pairings(msg) {
        const ol = el('ol', 'swiss-pairings');
        ol.id = 'swiss-pairings';
        const me = this.ctx.me();
        for (const b of msg.pairings) {
            const li = el('li', me && (b.white === me.id || b.black === me.id)
                ? 'mine' : null);
            const who = b.black === null ? `${b.white_name}: bye`
                : `${b.white_name} – ${b.black_name}`;
            if (b.game) {
                const a = el('a', null, who);
                a.href = `/g/${b.game}`;
                li.append(a);
            } else {
                li.append(who);
            }
            li.append(` ${b.result && b.black !== null ? b.result
                                                       : b.game ? '(playing)'
                                                                : ''}`);
            ol.append(li);
        }
        return ol;
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
        // (a player who joined since the last pairing has no rank yet)
        const myPage = this.mine && this.mine.rank
            ? pageOf(this.mine.rank) : null;
        if ('me' in msg && !this.opened) {
            this.opened = true;
            if (myPage && myPage !== msg.page && msg.status !== 'finished') {
                this.watch(myPage);
                return;
            }
        }
        if (msg.page > msg.pages) { /* (players left: fewer pages) */
            this.watch(msg.pages);
            return;
        }
        this.deadline = msg.next_ms
            ? { ms: msg.next_ms, what: `round ${msg.round + 1} in` } : null;
        const parts = [this.head(msg)];
        if (msg.round) {
            parts.push(el('h3', null, `Round ${msg.round}`),
                       this.pairings(msg));
        }
        const table = el('table', 'lb-table arena-standings');
        table.id = 'swiss-standings';
        const thead = el('thead');
        const tr = el('tr');
        for (const c of ['Rank', 'Player', 'Points', 'SB', 'Perf.',
                         'Rounds'])
            tr.append(Object.assign(el('th', null, c), { scope: 'col' }));
        thead.append(tr);
        const body = el('tbody');
        for (const r of msg.standings) {
            const row = el('tr', me && r.id === me.id ? 'mine' : null);
            const sheet = r.sheet.map((s) => s.opp
                ? `${s.result}${s.colour}${s.opp}` : s.result).join(' ');
            row.append(el('td', null, r.rank ? String(r.rank) : '–'),
                       el('td', null, r.name +
                          (r.withdrawn ? ' (withdrawn)' : '')),
                       el('td', 'arena-score', String(r.points)),
                       el('td', null, String(r.sb)),
                       el('td', null, String(r.performance)),
                       el('td', 'arena-sheet', sheet));
            body.append(row);
        }
        table.append(el('caption', 'sr-only', 'Standings'), thead, body);
        if (msg.standings.length)
            parts.push(pager('swiss', msg, myPage, (p) => this.watch(p)),
                       table);
        else
            parts.push(el('p', 'arena-empty', 'Nobody has joined yet.'));
        replaceKeepingFocus(this.page, parts, 'swiss-join-pw');
        countdown(this, 'swiss-countdown');
    }

    onError(req, msg) {
        if (req && req.t === 'swiss_watch' && msg.code === 'no_such_event')
            this.page.replaceChildren(el('p', 'arena-empty',
                                         'No tournament has that address.'));
    }
}
