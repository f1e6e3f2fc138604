// copy.js - text to the clipboard: the Clipboard API where the page may use
// it, else the copy command on a selected, off-screen text area (older
// browsers, a page not served over HTTPS or from localhost).

// Copies `text`; resolves to true when it reached the clipboard.
export async function copyText(text) {
    try {
        await navigator.clipboard.writeText(text);
        return true;
    } catch {
        /* no Clipboard API here, or not allowed: the old way */
    }
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'sr-only';
    document.body.append(area);
    area.select();
    let ok = false;
    try {
        ok = document.execCommand('copy');
    } catch {
        ok = false;
    }
    area.remove();
    return ok;
}
