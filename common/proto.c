/*
 * proto.c - the protocol's vocabulary (see proto.h): the names of codes
 * and colours, the checks of keys and names, and UTF-8. The codec itself
 * is in proto_parse.c (client messages), proto_render.c (server
 * messages), proto_moved.c (`moved`, written directly) and proto_api.c
 * (the HTTP API's bodies), with proto_json.c's pieces they share.
 */
#include "proto.h"

#include <stdio.h>
#include <string.h>

#include "proto_internal.h"

static const char *const code_names[PROTO_CODE_COUNT] = {
    [PROTO_OK] = "ok",
    [PROTO_BAD_JSON] = "bad_json",
    [PROTO_BAD_FIELD] = "bad_field",
    [PROTO_UNKNOWN_TYPE] = "unknown_type",
    [PROTO_UNAUTHENTICATED] = "unauthenticated",
    [PROTO_BAD_TOKEN] = "bad_token",
    [PROTO_NO_SUCH_GAME] = "no_such_game",
    [PROTO_NOT_A_PLAYER] = "not_a_player",
    [PROTO_NOT_STARTED] = "not_started",
    [PROTO_GAME_OVER] = "game_over",
    [PROTO_STALE_PLY] = "stale_ply",
    [PROTO_NOT_YOUR_TURN] = "not_your_turn",
    [PROTO_ILLEGAL_MOVE] = "illegal_move",
    [PROTO_BAD_CLOCK] = "bad_clock",
    [PROTO_CLAIM_REJECTED] = "claim_rejected",
    [PROTO_SEAT_TAKEN] = "seat_taken",
    [PROTO_OWN_GAME] = "own_game",
    [PROTO_NO_DRAW_OFFER] = "no_draw_offer",
    [PROTO_ABORT_NOT_ALLOWED] = "abort_not_allowed",
    [PROTO_NO_SEEK] = "no_seek",
    [PROTO_RATE_LIMITED] = "rate_limited",
    [PROTO_TOO_MANY_GAMES] = "too_many_games",
    [PROTO_NO_REMATCH] = "no_rematch",
    [PROTO_BAD_USERNAME] = "bad_username",
    [PROTO_NAME_TAKEN] = "name_taken",
    [PROTO_WEAK_PASSWORD] = "weak_password",
    [PROTO_ALREADY_REGISTERED] = "already_registered",
    [PROTO_BAD_CREDENTIALS] = "bad_credentials",
    [PROTO_RATED_NEEDS_ACCOUNT] = "rated_needs_account",
    [PROTO_NEEDS_ACCOUNT] = "needs_account",
    [PROTO_NO_SUCH_SEEK] = "no_such_seek",
    [PROTO_RATING_OUT_OF_RANGE] = "rating_out_of_range",
    [PROTO_ADDRESS_FULL] = "address_full",
    [PROTO_SERVER_FULL] = "server_full",
    [PROTO_BUSY] = "busy",
    [PROTO_NO_ENGINE] = "no_engine",
    [PROTO_NOTHING_TO_TAKE_BACK] = "nothing_to_take_back",
    [PROTO_NO_TAKEBACK_REQUEST] = "no_takeback_request",
    [PROTO_TAKEBACK_DECLINED] = "takeback_declined",
    [PROTO_TAKEBACK_NOT_ALLOWED] = "takeback_not_allowed",
    [PROTO_GIVE_TIME_NOT_ALLOWED] = "give_time_not_allowed",
    [PROTO_GIVE_TIME_CAPPED] = "give_time_capped",
    [PROTO_NO_SUCH_PLAYER] = "no_such_player",
    [PROTO_NO_SUCH_CHALLENGE] = "no_such_challenge",
    [PROTO_TOO_MANY_CHALLENGES] = "too_many_challenges",
    [PROTO_CHALLENGE_UNAVAILABLE] = "challenge_unavailable",
    [PROTO_NOT_FINISHED] = "not_finished",
    [PROTO_ANALYSIS_LIMIT] = "analysis_limit",
    [PROTO_NO_SUCH_TOKEN] = "no_such_token",
    [PROTO_TOO_MANY_TOKENS] = "too_many_tokens",
    [PROTO_NO_SUCH_EVENT] = "no_such_event",
    [PROTO_EVENT_OVER] = "event_over",
    [PROTO_ALREADY_JOINED] = "already_joined",
    [PROTO_NOT_JOINED] = "not_joined",
    [PROTO_PAUSED] = "paused",
    [PROTO_EVENTS_FULL] = "events_full",
    [PROTO_BERSERK_REFUSED] = "berserk_refused",
    [PROTO_CONDITION_NOT_MET] = "condition_not_met",
    [PROTO_NO_TOURNAMENTS] = "no_tournaments",
    [PROTO_CHAT_NOT_ALLOWED] = "chat_not_allowed",
    [PROTO_MUTED] = "muted",
    [PROTO_NOT_MODERATOR] = "not_moderator",
    [PROTO_ACCOUNT_CLOSED] = "account_closed",
    [PROTO_PLAYBAN] = "playban",
    [PROTO_BLOCKED] = "blocked",
    [PROTO_TOO_MANY_BLOCKS] = "too_many_blocks",
    [PROTO_ALREADY_REPORTED] = "already_reported",
    [PROTO_NOT_ORGANISER] = "not_organiser",
    [PROTO_EVENT_STARTED] = "event_started",
    [PROTO_BOT_API_ONLY] = "bot_api_only",
    [PROTO_BOT_RATED] = "bot_rated",
    [PROTO_PAIRING] = "pairing",
    [PROTO_REMOVED] = "removed",
    [PROTO_BAD_PAIRINGS] = "bad_pairings",
    [PROTO_DRAW_TOO_EARLY] = "draw_too_early",
    [PROTO_ACCOUNT_TOO_NEW] = "account_too_new",
};

const char *proto_code_name(enum proto_code code)
{
    if (code < 0 || code >= PROTO_CODE_COUNT)
        return "?";
    return code_names[code];
}

const char *proto_color_name(int color)
{
    return color == 1 ? "black" : "white";
}

bool proto_key_chars(const char *s, size_t max)
{
    size_t n = 0;

    for (; s[n]; n++) {
        char c = s[n];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return false;
    }
    return n >= 1 && n <= max;
}

int proto_ai_level(const char *pid)
{
    static const char prefix[] = "stockfish-";

    if (strncmp(pid, prefix, sizeof prefix - 1))
        return 0;
    pid += sizeof prefix - 1;
    if (pid[0] < '1' || pid[0] > '0' + PROTO_AI_LEVELS || pid[1])
        return 0;
    return pid[0] - '0';
}

void proto_ai_player(int level, char *pid, char *name)
{
    snprintf(pid, PROTO_KEY_MAX + 1, "stockfish-%d", level);
    snprintf(name, PROTO_NAME_MAX + 1, "Stockfish level %d", level);
}

bool proto_key_valid(const char *s)
{
    return proto_key_chars(s, PROTO_KEY_MAX);
}

bool proto_name_valid(const char *s)
{
    return proto_key_chars(s, PROTO_NAME_MAX);
}

bool proto_username_valid(const char *s)
{
    return proto_key_chars(s, PROTO_USERNAME_MAX) &&
           strlen(s) >= PROTO_USERNAME_MIN;
}

size_t proto_utf8_chars(const char *s, size_t len)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

size_t proto_utf8_prefix(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;

    while (i < len) {
        unsigned c;
        size_t n;
        unsigned min, cp;
        uint64_t w;

        /* ASCII, eight bytes at a time: every message of a move is */
        while (len - i >= sizeof w &&
               (memcpy(&w, p + i, sizeof w), !(w & 0x8080808080808080ull)))
            i += sizeof w;
        if (i == len)
            break;
        c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        if ((c & 0xE0) == 0xC0) {
            n = 1, min = 0x80, cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            n = 2, min = 0x800, cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            n = 3, min = 0x10000, cp = c & 0x07;
        } else {
            return i;
        }
        if (len - i <= n)
            return i;
        for (size_t k = 1; k <= n; k++) {
            if ((p[i + k] & 0xC0) != 0x80)
                return i;
            cp = (cp << 6) | (p[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return i;
        i += n + 1;
    }
    return i;
}
