// mod.js - the moderation page (/mod), for moderators (PROTOCOL.md
// section 4, "Moderation"): the report queue, the worst first, with each
// entry's texts, and the actions on its player (warn, mute for a time,
// unmute, close the reports). Loaded by app.js the first time /mod is
// opened: a visit that never opens it does not fetch it.

const MUTES = [[600, '10 minutes'], [3600, '1 hour'], [86400, '1 day']];

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
        this.section.append(el('h1', { id: 'mod-title',
                                       textContent: 'Moderation' }),
                            refresh, this.status, this.list);
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

    // A message of app.js's: mod_reports, mod_done, or an error of ours.
    onMessage(msg) {
        if (msg.t === 'mod_reports')
            this.render(msg.reports);
        else if (msg.t === 'mod_done') {
            this.say(`Done: ${msg.action} ${msg.name}` +
                     (msg.until ? ` until ${when(msg.until)}` : '') + '.');
            this.ask();
        } else if (msg.t === 'error')
            this.say(msg.msg);
    }

    render(reports) {
        this.list.replaceChildren();
        if (!reports.length)
            this.say('No open reports.');
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
        return el('li', { className: 'mod-entry' },
            el('h2', null, link, ` · ${r.reason} · score ${r.score}` +
                ` · ${r.atoms} report${r.atoms === 1 ? '' : 's'}`),
            texts,
            el('label', { htmlFor: why.id, textContent: 'Why' }), why,
            el('label', { htmlFor: mute.id, textContent: 'Mute for' }), mute,
            el('div', { className: 'row' }, button('warn', 'Warn'),
               button('mute', 'Mute'), button('unmute', 'Unmute'),
               button('close', 'Close the reports')));
    }
}
