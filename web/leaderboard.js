// leaderboard.js - the leaderboard page (/leaderboard): a tab per rating
// category with its top 100 accounts (GET /api/leaderboard/CATEGORY), and,
// with ?player=PID, that player's ratings and graphs (ratings.js).
// ?category=C chooses the tab; the page keeps it in the address. Every
// tab says who is not listed (provisional ratings) and, to a logged-in
// player whose own rating is provisional, that theirs is one of them.

import { el, renderRatings } from './ratings.js';
import * as W from './words.js';

const $ = (id) => document.getElementById(id);

export class LeaderboardView {
    // me() -> the player the page speaks for (ME), or null.
    constructor(me = () => null) {
        this.me = me;
        this.section = $('leaderboard');
        this.category = 'blitz';
        this.loading = 0;      /* counts requests: only the last one draws */
        this.build();
    }

    build() {
        const title = el('h1', null, 'Leaderboard');
        title.id = 'leaderboard-title';
        this.player = el('div', 'lb-player');
        this.player.id = 'lb-player';
        this.player.hidden = true;
        this.tabs = el('div', 'lb-tabs');
        this.tabs.setAttribute('role', 'tablist');
        this.tabs.setAttribute('aria-label', 'Rating categories');
        this.panel = el('div', 'lb-panel');
        this.panel.id = 'lb-panel';
        this.panel.setAttribute('role', 'tabpanel');
        for (const c of W.CATEGORIES) {
            const b = el('button', 'lb-tab', W.categoryName(c));
            b.type = 'button';
            b.id = `lb-tab-${c}`;
            b.dataset.category = c;
            b.setAttribute('role', 'tab');
            b.setAttribute('aria-controls', 'lb-panel');
            b.addEventListener('click', () => this.choose(c, true));
            this.tabs.append(b);
        }
        // Arrow keys move between the tabs (the ARIA tabs pattern).
        this.tabs.addEventListener('keydown', (e) => {
            const i = W.CATEGORIES.indexOf(this.category);
            const n = W.CATEGORIES.length;
            const to = e.key === 'ArrowRight' ? (i + 1) % n
                : e.key === 'ArrowLeft' ? (i + n - 1) % n
                    : e.key === 'Home' ? 0 : e.key === 'End' ? n - 1 : -1;
            if (to < 0)
                return;
            e.preventDefault();
            this.choose(W.CATEGORIES[to], true);
            $(`lb-tab-${W.CATEGORIES[to]}`).focus();
        });
        this.section.append(title, this.player, this.tabs, this.panel);
    }

    // Shows the page for the address's query `params` (URLSearchParams).
    show(params) {
        this.section.hidden = false;
        document.title = 'Leaderboard · Chess';
        const pid = params.get('player');
        this.player.hidden = !pid;
        if (pid && pid !== this.pid) {
            this.pid = pid;
            this.player.replaceChildren();
            const h = el('h2', null, 'Ratings');
            h.id = 'lb-player-title';
            const box = el('div');
            box.id = 'lb-ratings';
            this.player.append(h, box);
            renderRatings(box, pid).then((p) => {
                if (p && this.pid === pid)
                    h.textContent = `Ratings of ${p.name}`;
            });
        } else if (!pid) {
            this.pid = null;
        }
        const c = params.get('category');
        this.choose(W.CATEGORIES.includes(c) ? c : this.category, false);
    }

    hide() {
        this.section.hidden = true;
    }

    // Whom the page speaks for is known now (or changed): the note
    // about one's own rating follows.
    onWelcome() {
        if (!this.section.hidden)
            this.load(this.category);
    }

    // Shows category `c`'s tab; `remember`: keeps it in the address.
    choose(c, remember) {
        this.category = c;
        for (const b of this.tabs.children) {
            const on = b.dataset.category === c;
            b.setAttribute('aria-selected', on ? 'true' : 'false');
            b.tabIndex = on ? 0 : -1;
        }
        this.panel.setAttribute('aria-labelledby', `lb-tab-${c}`);
        if (remember) {
            const url = new URL(location.href);
            url.searchParams.set('category', c);
            history.replaceState(null, '', url.pathname + url.search);
        }
        this.load(c);
    }

    async load(c) {
        const mine = ++this.loading;
        this.panel.setAttribute('aria-busy', 'true');
        let status = 0, body = null, own = null;
        const me = this.me();
        try {
            // (a logged-in player's own ratings, as they are now, for the
            // note: the welcome's may be older than its last game)
            const [r, p] = await Promise.all([
                fetch(`/api/leaderboard/${c}`),
                me && me.account
                    ? fetch(`/api/players/${encodeURIComponent(me.id)}`)
                        .then((x) => (x.ok ? x.json() : null))
                        .catch(() => null)
                    : null]);
            status = r.status;
            body = await r.json();
            own = p && p.ratings ? p.ratings : me && me.ratings;
        } catch {
            /* shown below */
        }
        if (mine !== this.loading)
            return;
        this.panel.removeAttribute('aria-busy');
        if (status !== 200 || !body || !Array.isArray(body.players)) {
            this.panel.replaceChildren(el('p', 'lb-empty', status === 429
                ? 'Too many requests: try again in a moment.'
                : 'The leaderboard could not be loaded. Try again later.'));
            return;
        }
        const note = el('p', 'lb-note', this.noteText(c, me, own));
        note.id = 'lb-note';
        if (!body.players.length) {
            this.panel.replaceChildren(el('p', 'lb-empty', 'No one is on the ' +
                `${W.categoryName(c).toLowerCase()} leaderboard yet.`), note);
            return;
        }
        const table = el('table', 'lb-table');
        const cap = el('caption', 'sr-only', `${W.categoryName(c)} ` +
                       'leaderboard');
        const head = el('tr');
        for (const h of ['Rank', 'Player', 'Rating', 'Games']) {
            const th = el('th', null, h);
            th.scope = 'col';
            head.append(th);
        }
        const thead = el('thead');
        thead.append(head);
        const tbody = el('tbody');
        body.players.forEach((p, i) => {
            const tr = el('tr');
            const name = el('td');
            const a = el('a', null, p.name);
            a.href = `/p/${encodeURIComponent(p.id)}`;
            name.append(a);
            tr.append(el('td', 'lb-rank', String(i + 1)), name,
                      el('td', 'lb-rating', String(p.rating)),
                      el('td', 'lb-games', String(p.games)));
            tbody.append(tr);
        });
        table.append(cap, thead, tbody);
        this.panel.replaceChildren(note, table);
    }

    // Who the leaderboard of category c leaves out, and whether the
    // player is one of them.
    noteText(c, me, ratings) {
        const name = W.categoryName(c).toLowerCase();
        let text = 'Provisional ratings (shown with a ?) are not listed: ' +
            'a rating counts here once its deviation is 110 or less, ' +
            'after about a dozen rated games in the category.';
        if (me && me.account) {
            const r = ratings && ratings[c];
            if (!r || r.provisional)
                text += ` Your ${name} rating, ${r ? W.ratingText(
                    Math.round(r.rating), true) : W.ratingText(1500, true)
                }, is still provisional${r ? ` (${r.games} rated game${
                    r.games === 1 ? '' : 's'})` : ''}.`;
        }
        return text;
    }
}
