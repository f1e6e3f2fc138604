// challenge.js - challenges to a named player (PROTOCOL.md, "Challenges"):
// a Challenge button on a player's page (/p/PID), "Challenge a friend by
// name" in the lobby, and on every page a box of the pending challenges:
// those received, with Accept and Decline (with a reason), and those sent,
// waiting, with Cancel. How each ended is told in a toast; an accepted
// one's game_start opens the game as any other does (app.js).
//
// The server pushes every change (`challenge`); after each welcome the
// list is asked again (`challenges`), so that a page opened or reloaded
// shows what is pending.

const CLOCKS = [
    ['fischer:60:0', '1+0 Bullet'], ['fischer:180:0', '3+0 Blitz'],
    ['fischer:180:2', '3+2 Blitz'], ['fischer:300:3', '5+3 Blitz'],
    ['fischer:600:5', '10+5 Rapid'], ['fischer:900:10', '15+10 Rapid'],
    ['fischer:1800:0', '30+0 Classical'], ['per_move:60', '1 min per move'],
];
const DEFAULT_CLOCK = 'fischer:300:3';

// lichess's reasons, as its players read them (the server's keys).
export const DECLINE_REASONS = [
    ['generic', 'I\'m not accepting challenges at the moment.'],
    ['later', 'This is not the right time for me, please ask again later.'],
    ['tooFast', 'This time control is too fast for me.'],
    ['tooSlow', 'This time control is too slow for me.'],
    ['timeControl', 'I\'m not accepting challenges with this time control.'],
    ['rated', 'Please send me a rated challenge instead.'],
    ['casual', 'Please send me a casual challenge instead.'],
    ['standard', 'I\'m not accepting variant challenges right now.'],
    ['variant', 'I\'m not willing to play this variant right now.'],
    ['noBot', 'I\'m not accepting challenges from bots.'],
    ['onlyBot', 'I\'m only accepting challenges from bots.'],
];

function el(tag, props, ...kids) {
    const e = document.createElement(tag);
    Object.assign(e, props || {});
    e.append(...kids);
    return e;
}

function clockOf(value) {
    const [type, a, b] = value.split(':');
    return type === 'per_move'
        ? { type: 'per_move', per_move_s: Number(a) }
        : { type: 'fischer', initial_s: Number(a), increment_s: Number(b) };
}

export function clockText(c) {
    if (c.type === 'per_move')
        return `${c.per_move_s} s per move`;
    const min = c.initial_s / 60;
    return `${Number.isInteger(min) ? min : min.toFixed(1)}+${c.increment_s}`;
}

function select(label, name, options, value) {
    const s = el('select', { name });
    for (const [v, text] of options)
        s.append(el('option', { value: v, textContent: text,
                                selected: v === value }));
    return el('label', {}, `${label} `, s);
}

// A challenge's form: the clock, the colour, rated; with a name field when
// `named` (the lobby's), else for the player `target()` (a PID).
function buildForm(id, named, title) {
    const f = el('form', { id, className: 'challenge-form', noValidate: true });
    f.setAttribute('aria-label', title);
    if (named) {
        const to = el('input', { name: 'to', type: 'text', required: true,
                                 autocomplete: 'off', spellcheck: false,
                                 maxLength: 32 });
        f.append(el('label', {}, 'Player\'s name ', to));
    }
    f.append(select('Time control', 'clock', CLOCKS, DEFAULT_CLOCK),
             select('Your colour', 'color', [['random', 'Random'],
                                             ['white', 'White'],
                                             ['black', 'Black']], 'random'),
             el('label', {}, el('input', { type: 'checkbox', name: 'rated' }),
                ' Rated'),
             el('button', { type: 'submit', className: 'primary',
                            textContent: 'Send challenge' }));
    return f;
}

export class ChallengeView {
    // ctx: send(msg, req), me(), toast(text, kind), announce(text).
    constructor(ctx) {
        this.ctx = ctx;
        this.pending = new Map(); /* id -> challenge object */
        this.playerPid = null;

        this.box = el('section', { id: 'challenges', className: 'challenges' });
        this.box.setAttribute('aria-label', 'Challenges');
        this.box.hidden = true;
        document.body.append(this.box);

        // the lobby: "Challenge a friend by name"
        const friend = el('details', { id: 'challenge-friend',
                                       className: 'card challenge-friend' },
                          el('summary', { textContent:
                                          'Challenge a friend by name' }));
        this.friendForm = buildForm('challenge-friend-form', true,
                                    'Challenge a friend by name');
        friend.append(this.friendForm);
        const play = document.getElementById('play-form');
        if (play)
            play.after(friend);
        this.friendForm.addEventListener('submit', (e) => {
            e.preventDefault();
            const to = this.friendForm.elements.to.value.trim();
            if (!to) {
                this.ctx.toast('Type the name of the player to challenge.',
                               'error');
                return;
            }
            this.sendFrom(this.friendForm, to);
        });

        // a player's page: the Challenge button and its form
        this.playerBox = el('div', { id: 'player-challenge',
                                     className: 'card player-challenge' });
        this.playerBtn = el('button', { type: 'button', id: 'challenge-btn',
                                        textContent: 'Challenge' });
        this.playerBtn.setAttribute('aria-expanded', 'false');
        this.playerForm = buildForm('challenge-player-form', false,
                                    'Challenge this player');
        this.playerForm.hidden = true;
        this.playerBtn.addEventListener('click', () => {
            this.playerForm.hidden = !this.playerForm.hidden;
            this.playerBtn.setAttribute('aria-expanded',
                                        String(!this.playerForm.hidden));
        });
        this.playerForm.addEventListener('submit', (e) => {
            e.preventDefault();
            if (this.playerPid)
                this.sendFrom(this.playerForm, this.playerPid);
        });
        this.playerBox.append(this.playerBtn, this.playerForm);
        this.playerBox.hidden = true;
        const section = document.getElementById('player');
        if (section)
            section.prepend(this.playerBox);
    }

    sendFrom(form, to) {
        const f = form.elements;
        this.ctx.send({ t: 'challenge', to, clock: clockOf(f.clock.value),
                        color: f.color.value, rated: f.rated.checked },
                      { t: 'challenge' });
    }

    // The player page of pid is shown (null: none).
    showPlayer(pid) {
        this.playerPid = pid;
        const me = this.ctx.me();
        this.playerBox.hidden = !pid || (me && me.id === pid);
    }

    onWelcome() {
        this.pending.clear();
        this.render();
        this.ctx.send({ t: 'challenges' }, { t: 'challenges', quiet: true });
        this.showPlayer(this.playerPid);
    }

    onList(msg) {
        this.pending.clear();
        for (const c of [...msg.in, ...msg.out])
            this.pending.set(c.id, c);
        this.render();
    }

    incoming(c) {
        const me = this.ctx.me();
        return !!me && c.dest.id === me.id;
    }

    onChallenge(msg) {
        const c = msg.challenge;
        const inc = this.incoming(c);
        const other = inc ? c.challenger.name : c.dest.name;
        if (c.status === 'created') {
            const fresh = !this.pending.has(c.id);
            this.pending.set(c.id, c);
            this.render();
            if (fresh)
                this.ctx.announce(inc ? `${other} challenges you.`
                    : `Challenge sent to ${other}.`);
            return;
        }
        if (!this.pending.delete(c.id))
            return;
        this.render();
        if (c.status === 'declined') {
            const why = DECLINE_REASONS.find(([k]) => k === c.decline_reason);
            this.ctx.toast(inc ? `You declined ${other}'s challenge.`
                : `${other} declined your challenge: ${why ? why[1]
                    : c.decline_reason}`, 'info');
        } else if (c.status === 'canceled') {
            this.ctx.toast(inc ? `${other} canceled their challenge.`
                : `Your challenge to ${other} is canceled.`, 'info');
        } else if (c.status === 'expired') {
            this.ctx.toast(inc ? `${other}'s challenge has expired.`
                : `Your challenge to ${other} has expired.`, 'info');
        } else if (c.status === 'accepted') {
            this.ctx.announce(`Challenge accepted: the game starts.`);
        }
    }

    describe(c) {
        const inc = this.incoming(c);
        const mode = c.rated ? 'rated' : 'casual';
        const colour = c.color === 'random' ? 'random colours'
            : inc ? `you play ${c.color === 'white' ? 'black' : 'white'}`
                : `you play ${c.color}`;
        return `${clockText(c.clock)}, ${mode}, ${colour}`;
    }

    render() {
        const items = [];
        for (const c of this.pending.values()) {
            const li = el('li', { className: 'challenge' });
            li.dataset.challenge = c.id;
            if (this.incoming(c)) {
                const reason = select('Reason', 'reason', DECLINE_REASONS,
                                      'generic');
                const accept = el('button', { type: 'button',
                                              className: 'primary',
                                              textContent: 'Accept' });
                const decline = el('button', { type: 'button',
                                               textContent: 'Decline' });
                accept.addEventListener('click', () => this.ctx.send(
                    { t: 'challenge_accept', challenge: c.id },
                    { t: 'challenge_accept' }));
                decline.addEventListener('click', () => this.ctx.send(
                    { t: 'challenge_decline', challenge: c.id,
                      reason: reason.querySelector('select').value },
                    { t: 'challenge_decline' }));
                li.append(el('p', {}, el('b', { textContent:
                                                c.challenger.name }),
                             ` challenges you: ${this.describe(c)}.`),
                          el('div', { className: 'row' }, accept, reason,
                             decline));
            } else {
                const cancel = el('button', { type: 'button',
                                              textContent: 'Cancel' });
                cancel.addEventListener('click', () => this.ctx.send(
                    { t: 'challenge_cancel', challenge: c.id },
                    { t: 'challenge_cancel' }));
                li.append(el('p', { className: 'waiting' },
                             `Waiting for `, el('b', { textContent:
                                                       c.dest.name }),
                             ` to answer your challenge: ${
                                 this.describe(c)}…`),
                          el('div', { className: 'row' }, cancel));
            }
            items.push(li);
        }
        this.box.replaceChildren();
        if (items.length) {
            this.box.append(el('h2', { textContent: 'Challenges' }),
                            el('ul', {}, ...items));
        }
        this.box.hidden = items.length === 0;
    }
}
