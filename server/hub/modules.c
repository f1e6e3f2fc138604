/*
 * modules.c - the table of the hub's modules (module.h), in the order
 * hub_new initialises them. A new feature: its file, and its row here.
 */
#include "hub/module.h"

extern const struct hub_module hub_core_module;       /* ping: hub.c */
extern const struct hub_module hub_play_module;       /* a game's: play.c */
extern const struct hub_module hub_lobby_module;      /* seeks.c */
extern const struct hub_module hub_account_module;    /* hello.c, account.c */
extern const struct hub_module hub_prefs_module;      /* prefs.c */
extern const struct hub_module hub_rematch_module;    /* rematch.c */
extern const struct hub_module hub_computer_module;   /* computer.c */
extern const struct hub_module hub_takeback_module;   /* takeback.c */
extern const struct hub_module hub_challenge_module;  /* challenge.c */
extern const struct hub_module hub_analysis_module;   /* analysis.c */
extern const struct hub_module hub_apitoken_module;   /* apitokens.c */
extern const struct hub_module hub_mygames_module;    /* mygames.c */
extern const struct hub_module hub_testtime_module;   /* testtime.c */
extern const struct hub_module hub_arena_module;      /* arena_director.c */
extern const struct hub_module hub_swiss_module;      /* swiss_director.c */
extern const struct hub_module hub_chat_module;       /* chat.c */
extern const struct hub_module hub_rooms_module;      /* rooms.c */
extern const struct hub_module hub_playban_module;    /* playban.c */
extern const struct hub_module hub_relation_module;   /* relation.c */
extern const struct hub_module hub_botapi_module;     /* botapi.c */
extern const struct hub_module hub_botaccount_module; /* botaccount.c */
extern const struct hub_module hub_moderation_module; /* moderation.c */
extern const struct hub_module hub_maintenance_module; /* maintenance.c */
extern const struct hub_module hub_tourney_api_module; /* tourney_api.c */

/* clang-format off */
const struct hub_module *const hub_modules[] = {
    &hub_core_module,       &hub_play_module,
    &hub_lobby_module,      &hub_account_module,
    &hub_prefs_module,      &hub_rematch_module,
    &hub_computer_module,   &hub_takeback_module,
    &hub_challenge_module,  &hub_analysis_module,
    &hub_apitoken_module,   &hub_mygames_module,
    &hub_testtime_module,   &hub_arena_module,
    &hub_swiss_module,      &hub_chat_module,
    &hub_playban_module,    &hub_relation_module,
    &hub_botapi_module,     &hub_botaccount_module,
    &hub_moderation_module, &hub_rooms_module,
    &hub_maintenance_module, &hub_tourney_api_module,
    NULL,
};
/* clang-format on */
