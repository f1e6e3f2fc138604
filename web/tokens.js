// tokens.js - an account's personal API tokens, in the settings dialog
// (PROTOCOL.md section 4, "API tokens"): make one (a description and its
// scopes' checkboxes; the token shown once, with a copy button), list
// them (never their text: the server keeps only a hash) and revoke one.
// A guest sees none of it.

import { copyText } from './copy.js';

const $ = (id) => document.getElementById(id);

// The scopes, as the server knows them, with what each lets a program do.
export const SCOPES = [
    ['bot:play', 'Play as a bot (Bot API)'],
    ['board:play', 'Play your games from another board (Board API)'],
    ['challenge:read', 'Read your challenges'],
    ['challenge:write', 'Send, accept and decline challenges'],
    ['preference:read', 'Read your settings'],
    ['preference:write', 'Change your settings'],
    ['tournament:write', 'Create, join and leave tournaments'],
];

const ERRORS = {
    too_many_tokens: 'You have 20 tokens: revoke one first.',
    rate_limited: 'Too many changes at once: try again in a minute.',
    no_such_token: 'That token is gone already.',
    needs_account: 'Sign up or log in to have API tokens.',
};

export class TokensView {
    // send(msg) -> the message's id, or 0 when it could not be sent.
    constructor(send) {
        this.send = send;
        this.account = null;
        this.tokens = [];
        this.bind();
    }

    bind() {
        const create = $('token-create');
        if (!create)
            return;
        create.addEventListener('click', () => this.create());
        $('token-desc').addEventListener('keydown', (e) => {
            if (e.key === 'Enter') { // (not the settings form's submit)
                e.preventDefault();
                this.create();
            }
        });
        $('token-copy').addEventListener('click', async () => {
            const ok = await copyText($('token-text').textContent);
            this.status(ok ? 'Copied.' : 'Select the token and copy it.');
        });
        $('token-list').addEventListener('click', (e) => {
            const b = e.target.closest('button[data-token-id]');
            if (b)
                this.revoke(b.dataset.tokenId);
        });
        const open = $('settings-btn');
        if (open)
            open.addEventListener('click', () => this.refresh());
    }

    status(text) {
        const s = $('token-status');
        if (s)
            s.textContent = text;
    }

    // `welcome` or `registered`: an account sees its tokens (read when
    // the dialog opens), a guest none.
    onIdentity(me) {
        this.account = me && me.account ? me.id : null;
        this.tokens = [];
        this.hideNew();
        this.render();
        if ($('settings-dialog') && $('settings-dialog').open)
            this.refresh();
    }

    onSignedOut() {
        this.onIdentity(null);
    }

    refresh() {
        if (this.account)
            this.send({ t: 'token_list' });
    }

    create() {
        if (!this.account)
            return;
        const scopes = SCOPES.map(([s]) => s).filter((s) =>
            $(`token-scope-${s.replace(':', '-')}`).checked);
        const description = $('token-desc').value.trim();
        if (new TextEncoder().encode(description).length > 100) {
            this.status('A description has at most 100 bytes.');
            return;
        }
        if (this.send({ t: 'token_create', description, scopes }))
            this.status('Making the token…');
    }

    revoke(tokenId) {
        if (this.send({ t: 'token_revoke', token_id: tokenId }))
            this.status('Revoking…');
    }

    hideNew() {
        const box = $('token-new');
        if (box) {
            box.hidden = true;
            $('token-text').textContent = '';
        }
    }

    // token_created, tokens, token_revoked: true when it was one of them.
    onMessage(msg) {
        if (msg.t === 'token_created') {
            $('token-text').textContent = msg.token;
            $('token-new').hidden = false;
            $('token-desc').value = '';
            for (const [s] of SCOPES)
                $(`token-scope-${s.replace(':', '-')}`).checked = false;
            this.status('Token made: copy it now, it is shown only once.');
            $('token-copy').focus();
            this.refresh();
            return true;
        }
        if (msg.t === 'tokens') {
            this.tokens = msg.tokens;
            this.render();
            return true;
        }
        if (msg.t === 'token_revoked') {
            this.status('Token revoked: it opens nothing any more.');
            this.refresh();
            return true;
        }
        return false;
    }

    // An error answering one of ours (req: what was sent).
    onError(req, msg) {
        if (!req || !String(req.t).startsWith('token_'))
            return false;
        this.status(ERRORS[msg.code] || msg.msg);
        return true;
    }

    render() {
        const box = $('tokens');
        if (!box)
            return;
        box.hidden = !this.account;
        const list = $('token-list');
        list.replaceChildren(...this.tokens.map((t) => {
            const li = document.createElement('li');
            const what = document.createElement('span');
            const when = new Date(t.created_ms).toISOString().slice(0, 10);
            what.textContent = `${t.description || 'No description'} ` +
                `(${t.scopes.length ? t.scopes.join(', ') : 'no scopes'}; ` +
                `made ${when})`;
            const b = document.createElement('button');
            b.type = 'button';
            b.textContent = 'Revoke';
            b.dataset.tokenId = t.token_id;
            b.setAttribute('aria-label',
                           `Revoke ${t.description || 'the token'} ` +
                           `made ${when}`);
            li.append(what, ' ', b);
            return li;
        }));
        $('token-none').hidden = this.tokens.length > 0;
    }
}
