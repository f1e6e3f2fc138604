// player.js - a player's page (/p/PID): the ratings per category with
// their graphs (ratings.js), then the finished games, newest first,
// from the HTTP API (`GET /api/players/PID/games`, PROTOCOL.md section 9),
// a page at a time with "More games". Each game names the opponent (a link
// to their page), the colour, result, reason, clock and date, with links to
// the game and its PGN.
//
// Wins, draws and losses are not counted here: the listed pages are not
// all the games. The filters (speed, rated, result, opponent) go to the
// server, which looks at 1,000 games a page at most: a filtered page may
// come short, even empty, with "More games" to look further.

import { renderRatings } from './ratings.js';
import * as W from './words.js';

const $ = (id) => document.getElementById(id);
const LIMIT_DEFAULT = 20;
const LIMIT_MAX = 100;
// The filters' fields and their query words.
const FILTERS = [['pf-speed', 'speed'], ['pf-rated', 'rated'],
                 ['pf-result', 'result'], ['pf-vs', 'vs']];

const DATE = new Intl.DateTimeFormat(undefined, {
    year: 'numeric', month: 'short', day: 'numeric',
    hour: '2-digit', minute: '2-digit',
});

export class PlayerView {
    // ctx: me() -> ME or null, announce(text).
    constructor(ctx) {
        this.ctx = ctx;
        this.section = $('player');
        this.pid = null;
        this.limit = LIMIT_DEFAULT;
        this.games = [];
        this.next = null;        /* `before` of the next page, or null */
        this.loaded = false;     /* the first page came */
        this.loading = false;
        this.seq = 0;            /* answers of an older request are dropped */
        $('player-more').addEventListener('click', () => this.load(true));
        $('player-retry').addEventListener('click', () =>
            this.load(this.loaded));
        for (const [id] of FILTERS)
            $(id).addEventListener('change', () => this.reload());
        $('player-filters').addEventListener('submit', (ev) => {
            ev.preventDefault();
            this.reload();
        });
    }

    // The filters' query ('' when none is set).
    query() {
        let q = '';
        for (const [id, word] of FILTERS) {
            const v = $(id).value.trim();
            if (v)
                q += `&${word}=${encodeURIComponent(v)}`;
        }
        return q;
    }

    // The list again from the newest game, with the filters as they are.
    reload() {
        if (this.section.hidden || !this.pid)
            return;
        this.games = [];
        this.next = null;
        this.loaded = false;
        $('player-games').replaceChildren();
        this.load(false);
    }

    // Shows player `pid`'s games, `limit` (from the page's ?limit=) a page.
    open(pid, limit) {
        const n = Number(limit);
        const lim = Number.isInteger(n) && n >= 1 && n <= LIMIT_MAX ? n
            : LIMIT_DEFAULT;
        this.section.hidden = false;
        if (pid === this.pid && lim === this.limit && (this.loaded ||
                                                       this.loading)) {
            this.render();
            return;
        }
        if (pid !== this.pid) {
            renderRatings($('player-ratings'), pid);
            for (const [id] of FILTERS) /* another player: all games */
                $(id).value = '';
        }
        this.pid = pid;
        this.limit = lim;
        this.games = [];
        this.next = null;
        this.loaded = false;
        $('player-games').replaceChildren();
        this.load(false);
    }

    // On the player's own page: its games in progress (mygames.js).
    renderMine() {
        const me = this.ctx.me();
        const items = !this.section.hidden && me && me.id === this.pid
            ? this.ctx.myGames() : [];
        $('player-mine-list').replaceChildren(...items);
        $('player-mine').hidden = items.length === 0;
    }

    hide() {
        this.section.hidden = true;
        this.seq += 1;
        this.loading = false;
        this.pid = null;
    }

    // Our identity may have changed: "Your games" or the name.
    onWelcome() {
        if (!this.section.hidden)
            this.renderHead();
    }

    async load(more) {
        const seq = ++this.seq;
        const pid = this.pid;
        this.filtered = this.query() !== '';
        let url = `/api/players/${encodeURIComponent(pid)}/games?limit=${
            this.limit}${this.query()}`;
        if (more && this.next)
            url += `&before=${encodeURIComponent(this.next)}`;
        this.loading = true;
        this.error = '';
        this.render();
        let body = null;
        let error = '';
        try {
            const r = await fetch(url, { headers: { accept:
                                                    'application/json' } });
            if (r.status === 429)
                error = 'Too many requests at once: wait a moment, then ' +
                    'try again.';
            else if (r.status === 400 && (await r.json()).error === 'bad_vs')
                error = 'An opponent is named by letters, digits, _ and - ' +
                    'only.';
            else if (!r.ok)
                error = `The games could not be loaded (${r.status}).`;
            else
                body = await r.json();
        } catch {
            error = 'The games could not be loaded: the server did not ' +
                'answer.';
        }
        if (seq !== this.seq)
            return;
        this.loading = false;
        this.error = error;
        if (body) {
            const first = this.games.length;
            const added = Array.isArray(body.games) ? body.games : [];
            this.games.push(...added);
            this.next = body.next || null;
            this.loaded = true;
            const list = $('player-games');
            for (const g of added)
                list.append(this.item(g));
            if (more) {
                this.ctx.announce(`${added.length} more game${
                    added.length === 1 ? '' : 's'} listed.`);
                const a = list.children[first] &&
                    list.children[first].querySelector('a.hgame-open');
                if (a)
                    a.focus();
            }
        }
        this.render();
    }

    // The viewed player's name, from the newest game that names it.
    name() {
        for (const g of this.games) {
            for (const c of ['white', 'black'])
                if (g[c] && g[c].id === this.pid)
                    return g[c].name;
        }
        return null;
    }

    renderHead() {
        this.renderMine();
        const me = this.ctx.me();
        const mine = me && me.id === this.pid;
        const name = this.name();
        const title = mine ? 'Your games' : name ? `Games of ${name}`
            : 'Finished games';
        $('player-title').textContent = title;
        document.title = `${title} · Chess`;
    }

    render() {
        if (this.section.hidden)
            return;
        this.renderHead();
        const status = this.loading ? 'Loading games…'
            : this.loaded && this.games.length === 0 && this.next
                ? 'No game matches among the latest: "More games" looks ' +
                  'further.'
            : this.loaded && this.games.length === 0
                ? this.filtered ? 'No game matches.'
                    : 'No finished games yet.'
                : this.loaded && !this.next
                    ? `${this.games.length} game${
                        this.games.length === 1 ? '' : 's'}, all listed.`
                    : '';
        const st = $('player-status');
        if (st.textContent !== status)
            st.textContent = status;
        $('player-games').setAttribute('aria-busy', String(this.loading));
        $('player-error').textContent = this.error || '';
        $('player-error').hidden = !this.error;
        $('player-retry').hidden = !this.error || this.loading;
        $('player-more').hidden = !this.next || !!this.error;
        $('player-more').disabled = this.loading;
    }

    // One finished game as a list item.
    item(g) {
        const color = g.white && g.white.id === this.pid ? 'white' : 'black';
        const opp = g[W.other(color)];
        const outcome = W.outcome(g.result, color);
        const li = document.createElement('li');
        li.className = 'hgame';
        li.dataset.game = g.game;

        const res = document.createElement('span');
        res.className = `hres ${outcome.toLowerCase()}`;
        res.textContent = outcome;

        const main = document.createElement('span');
        main.className = 'hmain';
        const vs = document.createElement('span');
        vs.className = 'hvs';
        const dot = document.createElement('span');
        dot.className = `pcolor ${color}`;
        dot.setAttribute('aria-hidden', 'true');
        vs.append(dot, `${W.colorName(color)} against `);
        const oppName = opp ? opp.name : 'nobody';
        if (opp) {
            const a = document.createElement('a');
            a.className = 'hopp';
            a.href = `/p/${opp.id}`;
            a.textContent = opp.name;
            vs.append(a);
        } else {
            vs.append(oppName);
        }

        const meta = document.createElement('span');
        meta.className = 'hmeta';
        const when = g.ended_ms ? new Date(g.ended_ms) : null;
        const parts = [W.clockLabel(g.clock), W.clockSpeed(g.clock),
                       g.rated ? 'Rated' : 'Casual',
                       W.reasonShort(g.reason)].filter(Boolean);
        const score = document.createElement('span');
        score.className = 'hscore';
        score.textContent = g.result;
        meta.append(`${parts.join(' · ')} · `, score);
        if (when) {
            const time = document.createElement('time');
            time.dateTime = when.toISOString();
            time.textContent = DATE.format(when);
            meta.append(' · ', time);
        }
        const change = g.ratings && g.ratings[color];
        if (change) { /* the player's rating before and after, as +N/-N */
            const d = change.after - change.before;
            const delta = document.createElement('span');
            delta.className = `hdelta ${d > 0 ? 'up' : d < 0 ? 'down' : ''}`;
            delta.textContent = `${change.after} (${d > 0 ? '+' : d < 0
                ? '\u2212' : '±'}${Math.abs(d)})`;
            delta.title = `Rating ${change.before} before this game`;
            meta.append(' · ', delta);
        }
        if (g.analysed) { /* a computer analysis to read on the game page */
            const mark = document.createElement('span');
            mark.className = 'hanalysed';
            mark.textContent = 'Analysed';
            meta.append(' · ', mark);
        }
        if (g.opening) {
            const op = document.createElement('span');
            op.className = 'hopening';
            op.textContent = `${g.opening.eco} ${g.opening.name}`;
            main.append(vs, op, meta);
        } else {
            main.append(vs, meta);
        }

        const links = document.createElement('span');
        links.className = 'hlinks';
        const about = `${W.colorName(color)} against ${oppName}${
            when ? `, ${DATE.format(when)}` : ''}`;
        const open = document.createElement('a');
        open.className = 'button hgame-open';
        open.href = `/g/${g.game}`;
        open.textContent = 'Game';
        open.setAttribute('aria-label', `Game: ${about}`);
        const pgn = document.createElement('a');
        pgn.className = 'button hgame-pgn';
        pgn.href = `/api/games/${g.game}/pgn`;
        pgn.setAttribute('download', `chess-${g.game}.pgn`);
        pgn.textContent = 'PGN';
        pgn.setAttribute('aria-label', `PGN: ${about}`);
        links.append(open, pgn);

        li.append(res, main, links);
        return li;
    }
}
