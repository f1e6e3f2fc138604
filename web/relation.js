// relation.js - Block / Unblock and Report on a player's page (/p/PID),
// for an account looking at another player (PROTOCOL.md section 4,
// "Blocks and reports"). Loaded by app.js the first time such a page
// shows: a visit that never opens one does not fetch it.
//
// The account's blocks come with `blocks` (asked once a connection),
// so the button says Block or Unblock; a report is a reason and a text
// (lichess's reasons), sent once, its answer told in the status line.

const REASONS = [
    ['cheat', 'Cheating (computer help)'],
    ['stall', 'Stalling or leaving games'],
    ['boost', 'Boosting or sandbagging ratings'],
    ['abuse', 'Insults or harassment'],
    ['spam', 'Spam'],
    ['username', 'Offensive username'],
    ['other', 'Something else'],
];
const TEXT_MAX = 500;
const MINE = new Set(['block', 'unblock', 'blocks', 'report']);

const WORDS = {
    already_reported: 'You reported this player less than a day ago.',
    rate_limited: 'Too many at once: try again in a minute.',
    too_many_blocks: 'You block 500 players: unblock one first.',
    needs_account: 'Sign up or log in to block or report players.',
};

function el(tag, props, ...kids) {
    const e = document.createElement(tag);
    Object.assign(e, props || {});
    e.append(...kids);
    return e;
}

export class RelationView {
    // ctx: send(msg, req) -> id, me() -> ME or null, announce(text).
    constructor(ctx) {
        this.ctx = ctx;
        this.pid = null;
        this.blocked = null; // PIDs blocked (a Set), once `blocks` came
        this.asked = false;  // `blocks` asked on this connection
        this.build();
    }

    build() {
        this.box = el('div', { id: 'player-relation',
                               className: 'card player-relation' });
        this.blockBtn = el('button', { type: 'button', id: 'block-btn',
                                       textContent: 'Block' });
        this.blockBtn.addEventListener('click', () => this.toggleBlock());
        this.reportBtn = el('button', { type: 'button', id: 'report-btn',
                                        textContent: 'Report' });
        this.reportBtn.setAttribute('aria-expanded', 'false');
        this.reportBtn.setAttribute('aria-controls', 'report-form');
        this.reportBtn.addEventListener('click', () =>
            this.showForm(this.form.hidden));
        const reason = el('select', { id: 'report-reason', name: 'reason',
                                      required: true });
        for (const [v, words] of REASONS)
            reason.append(el('option', { value: v, textContent: words }));
        const text = el('textarea', { id: 'report-text', name: 'text',
                                      rows: 3, maxLength: TEXT_MAX,
                                      required: true });
        this.form = el('form', { id: 'report-form', className: 'report-form' },
            el('label', { htmlFor: 'report-reason', textContent: 'Reason' }),
            reason,
            el('label', { htmlFor: 'report-text',
                          textContent: 'What happened (games, times)' }),
            text,
            el('button', { type: 'submit', id: 'report-send',
                           textContent: 'Send the report' }));
        this.form.setAttribute('aria-label', 'Report this player');
        this.form.hidden = true;
        this.form.addEventListener('submit', (e) => {
            e.preventDefault();
            this.report();
        });
        this.status = el('p', { id: 'relation-status',
                                className: 'relation-status' });
        this.status.setAttribute('role', 'status');
        this.status.setAttribute('aria-live', 'polite');
        this.box.append(el('div', { className: 'row' }, this.blockBtn,
                           this.reportBtn), this.form, this.status);
        this.box.hidden = true;
        const section = document.getElementById('player');
        if (section)
            section.append(this.box);
    }

    // The player page of pid is shown (null: none).
    show(pid) {
        const me = this.ctx.me();
        const mine = !!pid && !!me && !!me.account && me.id !== pid;
        if (pid !== this.pid) {
            this.showForm(false);
            this.say('');
        }
        this.pid = pid;
        this.box.hidden = !mine;
        if (mine && !this.asked) {
            this.asked = true;
            this.ctx.send({ t: 'blocks' }, { t: 'blocks', quiet: true });
        }
        this.render();
    }

    // A new connection (or another player): the blocks are asked again.
    onWelcome() {
        this.asked = false;
        this.blocked = null;
        this.show(this.pid);
    }

    render() {
        const on = !!this.blocked && this.blocked.has(this.pid);
        this.blockBtn.textContent = on ? 'Unblock' : 'Block';
        this.blockBtn.setAttribute('aria-pressed', String(on));
        this.blockBtn.disabled = !this.blocked;
    }

    showForm(open) {
        this.form.hidden = !open;
        this.reportBtn.setAttribute('aria-expanded', String(open));
        if (open)
            this.form.elements.reason.focus();
    }

    say(text) {
        this.status.textContent = text;
    }

    toggleBlock() {
        if (!this.pid || !this.blocked)
            return;
        const t = this.blocked.has(this.pid) ? 'unblock' : 'block';
        this.ctx.send({ t, to: this.pid }, { t });
    }

    report() {
        const f = this.form.elements;
        const text = f.text.value.trim();
        if (!text) {
            this.say('Say what happened first.');
            f.text.focus();
            return;
        }
        this.ctx.send({ t: 'report', to: this.pid, reason: f.reason.value,
                        text }, { t: 'report' });
    }

    // 'blocks' and 'reported'.
    onMessage(msg) {
        if (msg.t === 'blocks') {
            const was = this.blocked && this.blocked.has(this.pid);
            this.blocked = new Set(msg.blocks.map((b) => b.pid));
            const now = this.blocked.has(this.pid);
            this.render();
            if (msg.id !== undefined && was !== now)
                this.say(now ? 'Blocked: you will not see their chat, ' +
                    'and neither of you can challenge the other.'
                    : 'Unblocked.');
        } else if (msg.t === 'reported') {
            this.form.reset();
            this.showForm(false);
            this.say(`Report about ${msg.name} sent to the moderators. ` +
                     'Thank you.');
        }
    }

    // An error answering one of this view's commands: shown here (true).
    onError(req, msg) {
        if (!req || !MINE.has(req.t))
            return false;
        this.say(WORDS[msg.code] || `Not done: ${msg.msg}`);
        return true;
    }
}
