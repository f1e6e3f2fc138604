// roomchat.js - a chat room that is no game's (PROTOCOL.md, Chat): the
// lobby's, beside the lobby when the server has one (it says so with the
// room's chat_history on lobby_watch), and a tournament's on its page.
// Each line's sender links to /p/PID; text is shown as text, never HTML;
// the "chat off" setting hides the room. On a phone the lobby's room is
// behind a tab ("Games" / "Chat") over the seeks and live games.

import { el } from './ratings.js';
import * as Settings from './settings.js';

const KEEP = 200; // lines kept on the page

export class RoomChat {
    // ctx: app.js's (send, me); room: 'lobby' or 'event'; parent: the
    // element the room goes in (last); tabbed: a phone shows it behind a
    // tab over parent's other children.
    constructor(ctx, room, parent, tabbed) {
        this.ctx = ctx;
        this.room = room;
        this.parent = parent;
        this.key = null;      // the room shown ('lobby', an event's id)
        this.present = false; // the server said the room is there
        this.lines = [];
        this.note = '';
        this.build(tabbed);
        Settings.onChange((name) => {
            if (name === 'chat')
                this.render();
        });
    }

    build(tabbed) {
        const id = (s) => `${this.room}-chat${s}`;
        this.box = el('section', 'card room-chat');
        this.box.id = id('');
        this.box.setAttribute('aria-labelledby', id('-title'));
        const title = el('h2', null, 'Chat');
        title.id = id('-title');
        this.log = el('div', 'chat-log');
        this.log.id = id('-log');
        this.log.setAttribute('role', 'log');
        this.log.setAttribute('aria-label', 'Chat lines');
        this.log.tabIndex = 0;
        this.noteEl = el('p', 'chat-note');
        this.noteEl.setAttribute('role', 'status');
        this.form = el('form', 'chat-form');
        const label = el('label', 'sr-only', 'Chat line');
        label.htmlFor = id('-input');
        this.input = el('input');
        Object.assign(this.input, { type: 'text', id: id('-input'),
                                    maxLength: 140, autocomplete: 'off',
                                    placeholder: 'Say something' });
        this.input.setAttribute('enterkeyhint', 'send');
        const go = el('button', null, 'Send');
        go.type = 'submit';
        go.id = id('-send');
        this.form.append(label, this.input, go);
        this.form.addEventListener('submit', (e) => {
            e.preventDefault();
            this.send();
        });
        this.box.append(title, this.log, this.noteEl, this.form);
        this.box.hidden = true;
        this.parent.append(this.box);
        if (tabbed)
            this.buildTabs(id);
    }

    // A phone's tabs over the parent: its other children, or the room.
    buildTabs(id) {
        this.tabs = el('div', 'room-tabs');
        this.tabs.setAttribute('role', 'tablist');
        this.tabs.setAttribute('aria-label', 'Lobby or chat');
        const tab = (text, chat) => {
            const b = el('button', null, text);
            b.type = 'button';
            b.id = id(chat ? '-tab' : '-tab-games');
            b.setAttribute('role', 'tab');
            b.addEventListener('click', () => {
                this.parent.classList.toggle('room-chat-shown', chat);
                this.render();
            });
            return b;
        };
        this.tabs.append(tab('Games', false), tab('Chat', true));
        this.tabs.hidden = true;
        this.parent.prepend(this.tabs);
    }

    // The room of key ('lobby', an event's id) is shown from now on; null:
    // none. A new key forgets the lines (the server replays them).
    show(key) {
        if (key !== this.key) {
            this.key = key;
            this.present = false;
            this.lines = [];
            this.note = '';
        }
        this.render();
    }

    mine(msg) {
        return msg.room === this.room && this.key !== null &&
            (this.room !== 'event' || msg.event === this.key);
    }

    // chat, chat_history or chat_muted; true when it was this room's.
    onMessage(msg) {
        if (msg.t === 'chat_muted') {
            this.note = 'You are muted until ' +
                new Date(msg.until).toLocaleTimeString() + '.';
            this.render();
            return false; // (every room hears it)
        }
        if (!this.mine(msg))
            return false;
        this.present = true;
        if (msg.t === 'chat_history')
            this.lines = msg.lines.slice(-KEEP);
        else
            this.lines = this.lines.concat([msg]).slice(-KEEP);
        this.render();
        return true;
    }

    // A chat request of this room refused.
    onError(req, msg) {
        if (!req || req.t !== 'chat' || req.room !== this.room)
            return false;
        this.note = msg.msg || msg.code;
        this.render();
        return true;
    }

    send() {
        const text = this.input.value;
        if (!text.trim() || this.key === null)
            return;
        const msg = { t: 'chat', room: this.room, text };
        if (this.room === 'event')
            msg.event = this.key;
        if (this.ctx.send(msg, { ...msg, quiet: true })) {
            this.input.value = '';
            this.note = '';
            this.render();
        }
    }

    // Guests read; they write only where the server lets them (an
    // error says so).
    render() {
        const off = Settings.get('chat') === 'off';
        const shown = this.present && this.key !== null && !off;
        this.box.hidden = !shown;
        if (this.tabs) {
            this.tabs.hidden = !shown;
            if (!shown)
                this.parent.classList.remove('room-chat-shown');
            const chat = this.parent.classList.contains('room-chat-shown');
            const [games, room] = this.tabs.children;
            games.setAttribute('aria-selected', String(!chat));
            room.setAttribute('aria-selected', String(chat));
        }
        this.noteEl.textContent = this.note;
        this.noteEl.hidden = !this.note;
        if (!shown)
            return;
        const atEnd = this.log.scrollTop + this.log.clientHeight >=
            this.log.scrollHeight - 4;
        this.log.replaceChildren(...this.lines.map((l) => {
            const line = el('div', 'chat-line');
            const who = el('a', 'chat-who', l.name);
            who.href = `/p/${encodeURIComponent(l.pid)}`;
            line.append(who, el('span', 'chat-text', l.text));
            return line;
        }));
        if (atEnd)
            this.log.scrollTop = this.log.scrollHeight;
    }
}
