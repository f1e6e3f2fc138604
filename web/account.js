// account.js - who the person is: the header (name, guest or account, the
// menu with "My games", sign up, log in, log out), the identity line of the
// lobby, and the sign-up / log-in dialog with its inline errors
// (PROTOCOL.md section 4, Accounts).
//
// The connection (net.js) keeps the token; this view only asks the server
// (`register`, `login`, `logout`) and shows the answers. After a logout the
// connection goes on as a new guest by itself.

import * as W from './words.js';

const $ = (id) => document.getElementById(id);
const PASSWORD_MAX_BYTES = 128;

export class AccountView {
    // ctx: send(msg, req) -> id or 0, me() -> ME or null, toast(text, kind),
    // confirm(text, yes, no) -> Promise<bool>, gamesInProgress() -> count,
    // rename() (opens the dialog for a new guest name).
    constructor(ctx) {
        this.ctx = ctx;
        this.mode = 'signup';     /* what the dialog does: signup | login */
        this.pending = 0;         /* id of the register/login awaited */
        this.logoutId = 0;        /* id of our own logout request */
        this.bind();
    }

    bind() {
        $('menu-btn').addEventListener('click', () =>
            this.menu($('account-menu').hidden));
        $('account-menu').addEventListener('click', (e) => {
            if (e.target.closest('a, button'))
                this.menu(false);
        });
        document.addEventListener('click', (e) => {
            if (!$('account-menu').hidden && !e.target.closest('.menu-wrap'))
                this.menu(false);
        });
        document.addEventListener('keydown', (e) => {
            if (e.key === 'Escape' && !$('account-menu').hidden) {
                this.menu(false);
                $('menu-btn').focus();
            }
        });
        $('account-menu').addEventListener('focusout', (e) => {
            if (e.relatedTarget && !e.relatedTarget.closest('.menu-wrap'))
                this.menu(false);
        });
        for (const id of ['menu-signup', 'signup-btn'])
            $(id).addEventListener('click', () => this.open('signup'));
        for (const id of ['menu-login', 'login-btn'])
            $(id).addEventListener('click', () => this.open('login'));
        for (const id of ['menu-logout', 'logout-btn'])
            $(id).addEventListener('click', () => this.logout(false));
        $('menu-logout-all').addEventListener('click',
                                              () => this.logout(true));
        $('account-form').addEventListener('submit', (e) => {
            e.preventDefault();
            this.submit();
        });
        $('account-cancel').addEventListener('click', () =>
            $('account-dialog').close());
        $('account-dialog').addEventListener('close', () => {
            this.pending = 0;
            $('account-pass').value = '';
        });
        for (const id of ['account-user', 'account-pass'])
            $(id).addEventListener('input', () => {
                $(id).removeAttribute('aria-invalid');
            });
    }

    menu(open) {
        $('account-menu').hidden = !open;
        $('menu-btn').setAttribute('aria-expanded', String(open));
    }

    // ---- the dialog ----------------------------------------------------

    // Opens the dialog to sign up or log in (mode 'signup' or 'login'),
    // with `username` filled in when given.
    open(mode, username) {
        const me = this.ctx.me();
        if (!me) {
            this.ctx.toast('Not connected to the server. Reconnecting…',
                           'error');
            return;
        }
        this.mode = mode;
        this.pending = 0;
        const signup = mode === 'signup';
        $('account-title').textContent = signup ? 'Sign up' : 'Log in';
        $('account-intro').textContent = signup
            ? 'You keep playing as the same player, with your games so ' +
              'far, under the username you choose. Log in with it on ' +
              'any device.'
            : me.account
                ? 'Log in to an account.'
                : `Log in to your account. This page then leaves the guest ` +
                  `${me.name}: sign up instead to keep a guest's games.`;
        $('account-user-rules').hidden = !signup;
        $('account-pass-rules').hidden = !signup;
        const pass = $('account-pass');
        pass.setAttribute('autocomplete', signup ? 'new-password'
            : 'current-password');
        pass.setAttribute('aria-describedby', signup ? 'account-pass-rules'
            : 'account-error');
        $('account-user').setAttribute('aria-describedby', signup
            ? 'account-user-rules account-error' : 'account-error');
        $('account-user').value = username || (signup &&
            /^[A-Za-z0-9_-]{2,20}$/.test(me.name) &&
            !/^Guest-/.test(me.name) ? me.name : '');
        pass.value = '';
        this.showError('', null);
        this.setBusy(false);
        $('account-dialog').showModal();
        (username ? pass : $('account-user')).focus();
    }

    setBusy(busy) {
        const signup = this.mode === 'signup';
        const ok = $('account-ok');
        ok.disabled = busy;
        ok.textContent = busy ? (signup ? 'Signing up…' : 'Logging in…')
            : (signup ? 'Sign up' : 'Log in');
        $('account-form').setAttribute('aria-busy', String(busy));
    }

    // Shows `text` under the fields; `field` (an input's id) is marked
    // invalid and gets the focus.
    showError(text, field) {
        $('account-error').textContent = text;
        for (const id of ['account-user', 'account-pass'])
            $(id).removeAttribute('aria-invalid');
        if (field) {
            $(field).setAttribute('aria-invalid', 'true');
            $(field).focus();
        }
    }

    submit() {
        if (this.pending)
            return;
        const username = $('account-user').value.trim();
        const password = $('account-pass').value;
        if (!username) {
            this.showError('Enter a username.', 'account-user');
            return;
        }
        if (!password) {
            this.showError('Enter a password.', 'account-pass');
            return;
        }
        if (new TextEncoder().encode(password).length > PASSWORD_MAX_BYTES) {
            this.showError('The password is too long: at most 128 bytes.',
                           'account-pass');
            return;
        }
        const t = this.mode === 'signup' ? 'register' : 'login';
        // The request remembered for its error carries no password.
        const id = this.ctx.send({ t, username, password }, { t });
        if (!id) {
            this.showError('Not connected to the server. Try again in a ' +
                           'moment.', null);
            return;
        }
        this.pending = id;
        this.showError('', null);
        this.setBusy(true);
    }

    // ---- logging out ---------------------------------------------------

    async logout(everywhere) {
        const n = this.ctx.gamesInProgress();
        const games = n > 0 ? ` You have ${n} game${n === 1 ? '' : 's'} in ` +
            'progress: their clocks keep running while no device of yours ' +
            'is connected.' : '';
        if (everywhere || games) {
            const text = everywhere
                ? `Log out on every device where this account is logged in?${
                    games}`
                : `Log out?${games}`;
            if (!await this.ctx.confirm(text, everywhere
                ? 'Log out everywhere' : 'Log out'))
                return;
        }
        const msg = everywhere ? { t: 'logout', everywhere: true }
            : { t: 'logout' };
        this.logoutId = this.ctx.send(msg, msg);
    }

    // ---- server messages -----------------------------------------------

    onWelcome(msg) {
        if (this.pending && msg.id === this.pending) {
            this.pending = 0;
            $('account-dialog').close();
            this.ctx.toast(`You are logged in as ${msg.player.name}.`, 'info');
        }
    }

    onRegistered(msg) {
        if (this.pending && msg.id === this.pending) {
            this.pending = 0;
            $('account-dialog').close();
        }
        this.ctx.toast(`Your account ${msg.player.name} is ready: log in ` +
                       'with it on any device.', 'info');
    }

    onLoggedOut(msg) {
        const mine = msg.id !== undefined && msg.id === this.logoutId;
        this.logoutId = 0;
        this.ctx.toast(mine
            ? 'You are logged out. You play on as a new guest.'
            : 'Your account was logged out on every device. You play on as ' +
              'a new guest.', 'info');
    }

    // An error answering a request (req: what was sent). Returns true when
    // it was shown here (the dialog's inline error), not as a toast.
    onError(req, msg) {
        if (!req || (req.t !== 'register' && req.t !== 'login'))
            return false;
        if (msg.id !== this.pending || $('account-dialog').open === false)
            return false;
        this.pending = 0;
        this.setBusy(false);
        const field = msg.code === 'bad_username' ||
            msg.code === 'name_taken' ? 'account-user'
            : msg.code === 'weak_password' || msg.code === 'bad_credentials'
                ? 'account-pass' : null;
        this.showError(W.accountErrorText(msg.code, msg.msg), field);
        if (msg.code === 'bad_credentials')
            $('account-pass').select();
        return true;
    }

    // The connection dropped: an answer awaited will not come.
    onOffline() {
        if (!this.pending)
            return;
        this.pending = 0;
        this.setBusy(false);
        this.showError('The connection dropped before the server answered: ' +
                       'try again.', null);
    }

    // ---- drawing -------------------------------------------------------

    render() {
        const me = this.ctx.me();
        const account = !!(me && me.account);
        const link = $('me');
        link.textContent = me ? me.name : '';
        link.hidden = !me;
        if (me)
            link.href = `/p/${me.id}`;
        $('me-kind').hidden = !me;
        $('me-kind').textContent = account ? 'account' : 'guest';
        $('me-kind').classList.toggle('account', account);
        $('menu-btn').hidden = !me;
        if (!me)
            this.menu(false);
        if (me)
            $('menu-mygames').href = `/p/${me.id}`;
        $('menu-signup').hidden = account;
        $('menu-login').hidden = account;
        $('menu-logout').hidden = !account;
        $('menu-logout-all').hidden = !account;

        $('identity-text').textContent = !me ? 'Connecting…'
            : account ? `You are logged in as ${me.name}.`
                : `You play as ${me.name}, a guest.`;
        $('rename-btn').hidden = !me || account;
        $('signup-btn').hidden = !me || account;
        $('login-btn').hidden = !me || account;
        $('logout-btn').hidden = !me || !account;
    }
}
