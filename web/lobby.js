// lobby.js - the front page: a colour and casual or (for accounts) rated,
// with a range of opponents' ratings, then one click on a time control
// seeks an opponent (as lichess's quick pairing; the keyboard chooses one
// with the arrows and plays it with Enter, and a custom clock is played
// with the button). "Invite a friend" turns the same click into an
// invitation, from a set-up position if one is given, and "Play with the
// computer" into a casual game against it at the level chosen (from the
// start or a set-up position). Lists the player's
// games in progress and, live while the page shows (lobby_watch), the
// open seeks (a click plays one: accept) and the live games (a click
// watches one).

import { askToNotify, isCorrespondence } from './mygames.js';
import { categoryOf } from './ratings.js';
import * as W from './words.js';

const $ = (id) => document.getElementById(id);

export class LobbyView {
    // ctx: send(msg, req) -> id or 0, me() -> PLAYER or null,
    // toast(text, kind), navigate(path).
    constructor(ctx) {
        this.ctx = ctx;
        this.section = $('lobby');
        this.seek = null;          /* the open seek, to renew on reconnect */
        this.games = new Map();    /* GID -> summary of a game in progress */
        this.feed = null;          /* the last lobby snapshot */
        this.watching = false;     /* lobby_watch sent on this connection */
        this.inviting = false;     /* a click on a clock invites */
        this.computing = false;    /* ... or plays the computer */
        this.bind();
        this.updateCustom();
    }

    bind() {
        const form = $('play-form');
        form.addEventListener('submit', (e) => {
            e.preventDefault();
            this.play();
        });
        // One click on a time control plays it (a pointer's click: the
        // keyboard's arrows only choose, detail 0); the custom one opens
        // its fields.
        $('presets').addEventListener('click', (e) => {
            const label = e.target.closest('label');
            const input = label && $(label.htmlFor);
            if (!input || e.detail === 0 || input.value === 'custom')
                return;
            input.checked = true;
            this.updateCustom();
            this.play();
        });
        $('invite-btn').addEventListener('click', () => {
            this.inviting = !this.inviting;
            this.computing = false;
            this.render();
        });
        $('computer-btn').addEventListener('click', () => {
            this.computing = !this.computing;
            this.inviting = false;
            this.render();
        });
        $('rating-range').addEventListener('change', () => this.render());
        $('cancel-seek-btn').addEventListener('click', () => this.cancelSeek());
        // A click anywhere on a seek's row plays it (its button is the
        // control for the keyboard); the player's name is a link.
        $('seeks-list').addEventListener('click', (e) => {
            const row = e.target.closest('li[data-seek]');
            if (!row || row.classList.contains('mine') ||
                e.target.closest('a') || e.target.closest('button'))
                return;
            this.accept(row.dataset.seek);
        });
        form.addEventListener('change', () => this.updateCustom());
        form.addEventListener('input', () => this.updateCustom());
    }

    show() {
        this.section.hidden = false;
        // "continue from here" of the analysis board: /?with=computer or
        // friend&fen=FEN opens the form with the position filled in
        const q = new URLSearchParams(location.search);
        if (q.get('fen') && /^(computer|friend)$/.test(q.get('with'))) {
            $('fen').value = q.get('fen');
            $('fen-box').open = true;
            this.computing = q.get('with') === 'computer';
            this.inviting = !this.computing;
        }
        this.watch();
        this.render();
        this.refreshRatings();
    }

    // Asks for the lobby's snapshots while the page shows (once per
    // connection: a watch ends with it).
    watch() {
        if (this.watching || this.section.hidden || !this.ctx.online())
            return;
        if (this.ctx.send({ t: 'lobby_watch' },
                          { t: 'lobby_watch', quiet: true }))
            this.watching = true;
    }

    // After a rated game ended the welcome's ratings are old: asks the
    // server for the player's current ones.
    async refreshRatings() {
        const me = this.ctx.me();
        if (!this.ratingsStale || !me || !me.account)
            return;
        this.ratingsStale = false;
        try {
            const r = await fetch(`/api/players/${encodeURIComponent(me.id)}`);
            const p = r.ok ? await r.json() : null;
            if (!p || !p.ratings) {
                this.ratingsStale = true;
                return;
            }
            if (this.ctx.me() !== me)
                return;
            me.ratings = {};
            for (const [c, v] of Object.entries(p.ratings))
                me.ratings[c] = { rating: v.rating, rd: v.rd, games: v.games,
                                  provisional: v.provisional };
            this.render();
        } catch {
            this.ratingsStale = true;
        }
    }

    hide() {
        this.section.hidden = true;
        this.inviting = false;
        this.computing = false;
        if (this.watching && this.ctx.online())
            this.ctx.send({ t: 'lobby_unwatch' });
        this.watching = false;
    }

    updateCustom() {
        const custom = $('tc-custom').checked;
        $('custom').hidden = !custom;
        const kind = document.querySelector(
            'input[name="kind"]:checked').value;
        $('fischer-fields').hidden = kind !== 'fischer';
        $('permove-fields').hidden = kind !== 'per_move';
        $('days-fields').hidden = kind !== 'days';
        const clock = this.customClock();
        $('custom-summary').textContent = custom && clock
            ? W.clockLabel(clock) : 'Set your own';
        this.renderRated();
    }

    // The rated switch (only accounts may play rated) and, for an
    // account, its rating in the chosen clock's category and the range of
    // opponents' ratings of a rated seek (none of it for the computer's
    // games, which are casual). They share one line of fixed height:
    // nothing below moves when the welcome fills it in.
    renderRated() {
        const me = this.ctx.me();
        const account = !!(me && me.account);
        const yes = $('rated-yes');
        yes.disabled = !account;
        if (!account && yes.checked)
            $('rated-no').checked = true;
        const why = $('rated-why');
        why.hidden = !me || account || this.computing;
        why.textContent = me && !account ? W.RATED_NEEDS_ACCOUNT : '';
        const mine = $('my-rating');
        const cat = account ? categoryOf(this.presetClock()) : null;
        mine.hidden = !cat || this.computing;
        if (cat) {
            const r = me.ratings && me.ratings[cat];
            mine.textContent = `Your ${W.categoryName(cat).toLowerCase()} ` +
                `rating: ${r ? W.ratingText(r.rating, r.provisional)
                    : W.ratingText(1500, true)}`;
        }
        $('range-box').hidden = !(cat && $('rated-yes').checked &&
                                  !this.inviting && !this.computing);
        $('rated-box').hidden = this.computing;
    }

    // The rating_range of a rated seek from the range chosen around the
    // player's rating in the clock's category (null: any).
    chosenRange(clock) {
        const me = this.ctx.me();
        const d = Number($('rating-range').value);
        const cat = categoryOf(clock);
        if (!d || !cat || !this.chosenRated())
            return null;
        const r = me.ratings && me.ratings[cat]
            ? Math.round(me.ratings[cat].rating) : 1500;
        return [Math.max(0, r - d), Math.min(4000, r + d)];
    }

    // The chosen clock, or null (an invalid custom one), saying nothing.
    presetClock() {
        const v = document.querySelector('input[name="tc"]:checked').value;
        if (v === 'custom')
            return this.customClock();
        const [type, a, b] = v.split(':');
        return type === 'per_move'
            ? { type, per_move_s: Number(a) }
            : { type, initial_s: Number(a), increment_s: Number(b) };
    }

    // The `rated` flag to send: true only for an account that chose it.
    chosenRated() {
        const me = this.ctx.me();
        return !!(me && me.account && $('rated-yes').checked);
    }

    customClock() {
        const kind = document.querySelector('input[name="kind"]:checked').value;
        if (kind === 'days') /* correspondence: 1-14 days, as on lichess */
            return { type: 'per_move',
                     per_move_s: Number($('c-days').value) * 86400 };
        if (kind === 'per_move') {
            const s = Number($('c-permove').value);
            if (!Number.isInteger(s) || s < 1 || s > 86400)
                return null;
            return { type: 'per_move', per_move_s: s };
        }
        const initial = Math.round(Number($('c-minutes').value) * 60);
        const inc = Number($('c-inc').value);
        if (!Number.isFinite(initial) || initial < 1 || initial > 10800 ||
            !Number.isInteger(inc) || inc < 0 || inc > 10)
            return null;
        return { type: 'fischer', initial_s: initial, increment_s: inc };
    }

    // The chosen clock, or null after telling the person what is wrong.
    chosenClock() {
        const c = this.presetClock();
        if (!c)
            this.ctx.toast('Choose between 0.5 and 180 minutes with an ' +
                           'increment of 0 to 10 seconds, or 1 to ' +
                           '86400 seconds per move.', 'error');
        return c;
    }

    chosenColor() {
        return document.querySelector('input[name="color"]:checked').value;
    }

    // A game of ours that is being played (not an invitation still
    // waiting), or undefined.
    liveGame() {
        for (const s of this.games.values())
            if (s.status === 'started' && !isCorrespondence(s.clock))
                return s;
        return undefined;
    }

    startSeek() {
        // The protocol lets a player hold several live games, but a fast
        // game wants the player's whole attention: this client seeks no
        // second opponent while one of the player's games is being played,
        // and says why beside the disabled button (render).
        if (this.liveGame())
            return;
        const clock = this.chosenClock();
        if (!clock)
            return;
        const msg = { t: 'seek', clock, color: this.chosenColor() };
        if (this.chosenRated())
            msg.rated = true;
        askToNotify(clock);
        const range = this.chosenRange(clock);
        if (range)
            msg.rating_range = range;
        if (!this.ctx.send(msg, msg))
            return;
        this.seek = msg;
        this.seekConfirmed = false;
        this.render();
    }

    // The click on a clock: a seek, an invitation or a computer game.
    play() {
        if (this.inviting)
            this.invite();
        else if (this.computing)
            this.computer();
        else
            this.startSeek();
    }

    // A casual game against the computer at the chosen level, with the
    // clock, colour and (optional) starting position of the form; none
    // while a game of ours is being played, as for a seek.
    computer() {
        if (this.liveGame())
            return;
        const clock = this.chosenClock();
        if (!clock)
            return;
        const level = Number(document.querySelector(
            'input[name="level"]:checked').value);
        const msg = { t: 'computer', level, clock,
                      color: this.chosenColor() };
        const fen = $('fen').value.trim();
        if (fen)
            msg.fen = fen;
        this.ctx.send(msg, msg);
    }

    invite() {
        const clock = this.chosenClock();
        if (!clock)
            return;
        const msg = { t: 'invite', clock, color: this.chosenColor() };
        askToNotify(clock);
        if (this.chosenRated())
            msg.rated = true;
        const fen = $('fen').value.trim();
        if (fen)
            msg.fen = fen;
        this.ctx.send(msg, msg);
    }

    // ---- server messages -----------------------------------------------

    onWelcome(msg) {
        this.watching = false; /* a new connection: watch again */
        this.watch();
        const keep = new Map();
        for (const gid of msg.games || [])
            keep.set(gid, this.games.get(gid) || { gid });
        this.games = keep;
        for (const gid of this.games.keys())
            this.ctx.send({ t: 'sync', game: gid }, { t: 'sync', game: gid,
                                                      quiet: true });
        // A seek dies with its connection: renew it.
        if (this.seek)
            this.ctx.send(this.seek, this.seek);
        this.render();
    }

    // The page speaks for another player now: the last one's seek is gone
    // with its connection (and is not this one's to renew).
    forget() {
        this.seek = null;
        this.seekConfirmed = false;
        this.games.clear();
        this.render();
    }

    onSeeking() {
        this.seekConfirmed = true;
        this.render();
    }

    onSeekCancelled() {
        this.seek = null;
        this.render();
    }

    onGameStart(msg) {
        this.seek = null;
        this.games.set(msg.game, { gid: msg.game });
        this.render();
    }

    // Keeps the list of games in progress current from any state/moved/end.
    onGameInfo(msg) {
        if (msg.t === 'game_end' && msg.ratings)
            this.ratingsStale = true;
        const s = this.games.get(msg.game);
        if (!s)
            return;
        if (msg.t === 'game_end' || msg.status === 'ended') {
            this.games.delete(msg.game);
        } else if (msg.t === 'state') {
            Object.assign(s, { white: msg.white, black: msg.black,
                               clock: msg.clock, status: msg.status,
                               toMove: msg.to_move });
        } else if (msg.t === 'moved') {
            s.toMove = s.toMove === 'white' ? 'black' : 'white';
            s.status = 'started';
        }
        if (!this.section.hidden)
            this.render();
    }

    // A lobby snapshot: the open seeks and the live games.
    onLobby(msg) {
        this.feed = msg;
        if (!this.section.hidden)
            this.renderFeed();
    }

    accept(sid) {
        const k = this.feed && (this.feed.seeks || []).find(
            (x) => x.seek === sid);
        if (k)
            askToNotify(k.clock);
        this.ctx.send({ t: 'accept', seek: sid }, { t: 'accept', seek: sid });
    }

    cancelSeek() {
        if (this.ctx.send({ t: 'cancel_seek' }, { t: 'cancel_seek' }))
            this.seek = null;
        this.render();
    }

    onError(req, msg) {
        if (req.t === 'seek') {
            this.seek = null;
            this.render();
        } else if (req.t === 'cancel_seek' && msg.code === 'no_seek') {
            this.seek = null;
            this.render();
        } else if (req.t === 'sync' && this.games.has(req.game)) {
            this.games.delete(req.game);
            this.render();
        }
    }

    render() {
        const seeking = !!this.seek;
        $('seeking').hidden = !seeking;
        $('seeking-tc').textContent = seeking ? `${
            this.seek.rated ? 'rated ' : ''}${W.clockLabel(
            this.seek.clock)}, ${this.seek.color === 'random'
            ? 'random colour' : this.seek.color}` : '';
        this.renderRated();
        const live = this.liveGame();
        const inviting = this.inviting, computing = this.computing;
        $('play-form').classList.toggle('inviting', inviting);
        $('play-form').classList.toggle('computing', computing);
        $('invite-btn').setAttribute('aria-pressed', String(inviting));
        $('computer-btn').setAttribute('aria-pressed', String(computing));
        $('fen-box').hidden = !inviting && !computing;
        $('computer-box').hidden = !computing;
        setText($('seek-btn'), inviting ? 'Create the invitation'
            : computing ? 'Play the computer' : 'Play online');
        setText($('tc-hint'), inviting
            ? 'Click one to create the invitation.'
            : computing ? 'Click one to play the computer at once.'
                : 'Click one to play online at once.');
        $('seek-btn').disabled = !inviting && (seeking || !!live);
        const busy = $('seek-busy');
        busy.hidden = !live;
        busy.textContent = live ? 'You have a game in progress: finish it ' +
            'before you look for another opponent.' : '';
        this.renderMine();
        this.renderFeed();
    }

    // Our games in progress: the invitations still waiting for an
    // opponent, the started games my_games lists (mygames.js: ours to move
    // first), and those it does not (hosted on another node of a cluster:
    // known from their `state`).
    renderMine() {
        const list = $('mygames-list');
        const items = [];
        const me = this.ctx.me();
        for (const s of this.games.values()) {
            if (!s.clock || this.ctx.isMyGame(s.gid))
                continue;
            const you = me && s.white && s.white.id === me.id ? 'white'
                : me && s.black && s.black.id === me.id ? 'black' : null;
            const opp = you ? s[W.other(you)] : null;
            const li = document.createElement('li');
            const a = document.createElement('a');
            a.href = `/g/${s.gid}`;
            a.dataset.internal = '1';
            a.textContent = s.status === 'waiting'
                ? `Your invitation, ${W.clockLabel(s.clock)}: waiting ` +
                  'for an opponent'
                : `${W.clockLabel(s.clock)} against ${
                    opp ? opp.name : 'an opponent'}`;
            if (s.status === 'started') {
                const mark = document.createElement('span');
                mark.className = s.toMove === you ? 'turn-mark' : 'wait-mark';
                mark.textContent = s.toMove === you ? 'Your turn'
                    : 'Their turn';
                a.append(' ', mark);
            }
            li.append(a);
            items.push(li);
        }
        const started = this.ctx.myGames();
        list.replaceChildren(...items, ...started);
        $('mygames').hidden = items.length + started.length === 0;
    }

    // The open seeks (yours marked, with a cancel; the others a click to
    // play) and the live games (a link to watch each).
    renderFeed() {
        const me = this.ctx.me();
        const hist = $('my-history');
        hist.hidden = !me;
        if (me)
            hist.href = `/p/${encodeURIComponent(me.id)}`;
        const seeks = this.feed ? this.feed.seeks : [];
        const games = this.feed ? this.feed.games : [];
        const list = $('seeks-list');
        list.replaceChildren(...seeks.map((k) => this.seekRow(k, me)));
        $('seeks-empty').hidden = seeks.length > 0;
        list.hidden = seeks.length === 0;
        const live = $('live-list');
        live.replaceChildren(...games.map((g) => gameRow(g)));
        $('live-empty').hidden = games.length > 0;
        live.hidden = games.length === 0;
    }

    seekRow(k, me) {
        const mine = !!(me && k.player.id === me.id);
        const li = el('li', mine ? 'seek-row mine' : 'seek-row');
        li.dataset.seek = k.seek;
        const who = el('span', 'seek-who');
        const name = el('a', 'seek-name', k.player.name);
        name.href = `/p/${encodeURIComponent(k.player.id)}`;
        who.append(name);
        // a guest may take an account's name: the server says which it is
        if (k.player.account === false)
            who.append(el('span', 'seek-guest', 'guest'));
        if (k.player.rating !== undefined)
            who.append(el('span', 'seek-rating',
                          W.ratingText(k.player.rating, k.player.provisional)));
        const clock = el('span', 'seek-clock', W.clockLabel(k.clock));
        // the colour the one who plays it gets (yours: the one you asked)
        const col = mine ? k.color
            : k.color === 'random' ? 'random' : W.other(k.color);
        const color = el('span', 'seek-color',
                         col === 'random' ? 'Random colour'
                             : mine ? `You: ${col}` : `You play ${col}`);
        const mode = el('span', k.rated ? 'seek-mode rated' : 'seek-mode',
                        k.rated ? (k.rating_range ? `Rated ${
                            k.rating_range[0]}–${k.rating_range[1]}`
                            : 'Rated') : 'Casual');
        let action;
        if (mine) {
            li.append(who, clock, color, mode, el('span', 'seek-yours',
                                                   'Your seek'));
            action = el('button', 'seek-cancel', 'Cancel');
            action.type = 'button';
            action.addEventListener('click', () => this.cancelSeek());
        } else {
            li.append(who, clock, color, mode);
            action = el('button', 'seek-play primary', 'Play');
            action.type = 'button';
            action.setAttribute('aria-label', `Play ${k.player.name}, ${
                W.clockLabel(k.clock)}, ${k.rated ? 'rated' : 'casual'}`);
            action.addEventListener('click', () => this.accept(k.seek));
        }
        li.append(action);
        return li;
    }
}

function setText(e, text) {
    if (e.textContent !== text)
        e.textContent = text;
}

function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls)
        e.className = cls;
    if (text !== undefined)
        e.textContent = text;
    return e;
}

// A live game's player: the name, marked when a guest (a guest may take
// an account's name: the server says which), and the rating of a rated
// game.
function playerNodes(p) {
    if (!p)
        return ['?'];
    const nodes = [p.name];
    if (p.account === false)
        nodes.push(' ', el('span', 'seek-guest', 'guest'));
    if (p.rating !== undefined)
        nodes.push(` (${W.ratingText(p.rating, p.provisional)})`);
    return nodes;
}

// A live game: a link that opens it to watch.
function gameRow(g) {
    const li = el('li', 'live-row');
    const a = el('a', 'live-link');
    a.href = `/g/${encodeURIComponent(g.game)}`;
    a.dataset.internal = '1';
    a.dataset.game = g.game;
    const moves = Math.ceil(g.ply / 2);
    const players = el('span', 'live-players');
    players.append(...playerNodes(g.white), ' – ', ...playerNodes(g.black));
    a.append(players,
             el('span', 'live-info', `${W.clockLabel(g.clock)}, ${
                 g.rated ? 'rated' : 'casual'}, ${g.ply === 0 ? 'starting'
                 : `move ${moves}`}`));
    li.append(a);
    return li;
}
