/* WebKitGTK 6.0 (GTK 4) for the engine helper, signinsim-webkit (Sources/WebKitHelper).
 *
 * Swift cannot call variadic C functions (g_object_new), expand GObject's cast and
 * signal macros, or pass a Swift closure where GLib wants a GCallback of another type.
 * The wrappers below are typed one-liners over the library's own functions; they add no
 * behaviour. Linked through pkg-config (webkitgtk-6.0), so the module map names no library.
 */
#ifndef SIGNINSIM_CWEBKITGTK_SHIM_H
#define SIGNINSIM_CWEBKITGTK_SHIM_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib-unix.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <gtk/gtk.h>
#include <webkit/webkit.h>

/* MARK: Objects that g_object_new builds (variadic) */

/* A web view bound to a network session (construct-only) with its settings. */
static inline WebKitWebView *signinsim_web_view_new(WebKitNetworkSession *session, WebKitSettings *settings) {
    return WEBKIT_WEB_VIEW(g_object_new(WEBKIT_TYPE_WEB_VIEW, "network-session", session, "settings", settings, NULL));
}

/* A persistent network session whose website data and cache live under `directory`. */
static inline WebKitNetworkSession *signinsim_persistent_session_new(const char *data_directory,
                                                                      const char *cache_directory) {
    return webkit_network_session_new(data_directory, cache_directory);
}

/* MARK: Casts (GObject macros) */

static inline GtkWidget *signinsim_widget(WebKitWebView *view) { return GTK_WIDGET(view); }
static inline GtkWindow *signinsim_window(GtkWidget *widget) { return GTK_WINDOW(widget); }
static inline WebKitNavigationPolicyDecision *signinsim_navigation_decision(WebKitPolicyDecision *decision) {
    return WEBKIT_NAVIGATION_POLICY_DECISION(decision);
}
static inline WebKitResponsePolicyDecision *signinsim_response_decision(WebKitPolicyDecision *decision) {
    return WEBKIT_RESPONSE_POLICY_DECISION(decision);
}
static inline void signinsim_object_ref(gpointer object) { g_object_ref(object); }
/* Disconnects every handler `instance` has with `data` (g_signal_handlers_disconnect_by_data). */
static inline void signinsim_disconnect_all(gpointer instance, gpointer data) {
    g_signal_handlers_disconnect_matched(instance, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, data);
}
/* Saves `pixbuf` as a JPEG of `quality` (0-100) into a new buffer (gdk_pixbuf_save_to_buffer is
 * variadic). */
static inline gboolean signinsim_pixbuf_jpeg(GdkPixbuf *pixbuf, int quality, gchar **buffer, gsize *size,
                                             GError **error) {
    char text[8];
    g_snprintf(text, sizeof text, "%d", quality < 1 ? 1 : (quality > 100 ? 100 : quality));
    char *keys[] = {"quality", NULL};
    char *values[] = {text, NULL};
    return gdk_pixbuf_save_to_bufferv(pixbuf, buffer, size, "jpeg", keys, values, error);
}
static inline void signinsim_object_unref(gpointer object) { g_object_unref(object); }

/* MARK: Signals, each with its handler's own type (g_signal_connect is a macro over GCallback) */

typedef gboolean (*signinsim_decide_policy_handler)(WebKitWebView *, WebKitPolicyDecision *,
                                                     WebKitPolicyDecisionType, gpointer);
typedef void (*signinsim_load_changed_handler)(WebKitWebView *, WebKitLoadEvent, gpointer);
typedef gboolean (*signinsim_load_failed_handler)(WebKitWebView *, WebKitLoadEvent, gchar *, GError *, gpointer);
typedef void (*signinsim_terminated_handler)(WebKitWebView *, WebKitWebProcessTerminationReason, gpointer);
typedef void (*signinsim_view_handler)(WebKitWebView *, gpointer);
typedef gboolean (*signinsim_script_dialog_handler)(WebKitWebView *, WebKitScriptDialog *, gpointer);
typedef gboolean (*signinsim_permission_handler)(WebKitWebView *, WebKitPermissionRequest *, gpointer);
typedef GtkWidget *(*signinsim_create_handler)(WebKitWebView *, WebKitNavigationAction *, gpointer);
typedef gboolean (*signinsim_authenticate_handler)(WebKitWebView *, WebKitAuthenticationRequest *, gpointer);

static inline gulong signinsim_on_decide_policy(WebKitWebView *view, signinsim_decide_policy_handler handler,
                                               gpointer data) {
    return g_signal_connect_data(view, "decide-policy", G_CALLBACK(handler), data, NULL, 0);
}
static inline gulong signinsim_on_load_changed(WebKitWebView *view, signinsim_load_changed_handler handler,
                                              gpointer data) {
    return g_signal_connect_data(view, "load-changed", G_CALLBACK(handler), data, NULL, 0);
}
static inline gulong signinsim_on_load_failed(WebKitWebView *view, signinsim_load_failed_handler handler,
                                             gpointer data) {
    return g_signal_connect_data(view, "load-failed", G_CALLBACK(handler), data, NULL, 0);
}
static inline gulong signinsim_on_web_process_terminated(WebKitWebView *view,
                                                        signinsim_terminated_handler handler, gpointer data) {
    return g_signal_connect_data(view, "web-process-terminated", G_CALLBACK(handler), data, NULL, 0);
}
static inline gulong signinsim_on_close(WebKitWebView *view, signinsim_view_handler handler, gpointer data) {
    return g_signal_connect_data(view, "close", G_CALLBACK(handler), data, NULL, 0);
}
static inline gulong signinsim_on_script_dialog(WebKitWebView *view, signinsim_script_dialog_handler handler,
                                               gpointer data) {
    return g_signal_connect_data(view, "script-dialog", G_CALLBACK(handler), data, NULL, 0);
}
static inline gulong signinsim_on_permission_request(WebKitWebView *view, signinsim_permission_handler handler,
                                                    gpointer data) {
    return g_signal_connect_data(view, "permission-request", G_CALLBACK(handler), data, NULL, 0);
}
static inline gulong signinsim_on_create(WebKitWebView *view, signinsim_create_handler handler, gpointer data) {
    return g_signal_connect_data(view, "create", G_CALLBACK(handler), data, NULL, 0);
}
static inline gulong signinsim_on_authenticate(WebKitWebView *view, signinsim_authenticate_handler handler,
                                              gpointer data) {
    return g_signal_connect_data(view, "authenticate", G_CALLBACK(handler), data, NULL, 0);
}

/* MARK: Processes */

/* Starts `argv[0]` (searched on PATH) in a child that receives `death_signal` when this process's
 * thread that forks it exits (PR_SET_PDEATHSIG), so that an X server outlives no helper,
 * however the helper ends. `keep_fd` stays open in the child (Xvfb's -displayfd); every
 * other descriptor above 2 is closed. Returns the child's pid, or -1 with errno. Called before
 * GTK starts any thread, so fork is safe. */
static inline pid_t signinsim_spawn_bound_to_parent(char *const argv[], int keep_fd, int death_signal) {
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) return pid;
    if (prctl(PR_SET_PDEATHSIG, death_signal) != 0 || getppid() != parent) _exit(127);
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
        dup2(devnull, 0);
        dup2(devnull, 1);
        dup2(devnull, 2);
    }
    long highest = sysconf(_SC_OPEN_MAX);
    for (int fd = 3; fd < (highest > 0 ? highest : 1024); fd++) {
        if (fd != keep_fd) close(fd);
    }
    execvp(argv[0], argv);
    _exit(127);
}

/* This process receives SIGKILL when the one that started it goes (PR_SET_PDEATHSIG); false
 * when that one is already gone. */
static inline gboolean signinsim_die_with_parent(pid_t expected_parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return FALSE;
    return getppid() == expected_parent;
}

#endif
