#ifndef SIGNINSIM_CMICROHTTPD_SHIM_H
#define SIGNINSIM_CMICROHTTPD_SHIM_H
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

/* MHD_start_daemon and MHD_get_daemon_info are variadic, which Swift cannot call. */

typedef void *(*sis_mhd_uri_log_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

/* Starts a daemon on a socket the caller has bound and put in listening state (MHD closes it in
   MHD_stop_daemon unless MHD_quiesce_daemon handed it back). A pool size below 2 means no pool.
   The connection limit is the daemon's total (a pool of threads shares it out evenly); the
   per-IP limit counts every thread's connections. */
static inline struct MHD_Daemon *sis_mhd_start_daemon(
    unsigned int flags, int listen_socket,
    MHD_AccessHandlerCallback access_handler, void *access_handler_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls,
    sis_mhd_uri_log_callback uri_log, void *uri_log_cls,
    unsigned int connection_timeout_seconds, unsigned int thread_pool_size,
    size_t connection_memory_limit, unsigned int connection_limit,
    unsigned int per_ip_connection_limit) {
    return MHD_start_daemon(
        flags, 0, NULL, NULL, access_handler, access_handler_cls,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_socket,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
        MHD_OPTION_URI_LOG_CALLBACK, uri_log, uri_log_cls,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_connection_limit,
        thread_pool_size > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END, thread_pool_size,
        MHD_OPTION_END);
}

/* The size of the request line and header block of the request being served, or 0. */
static inline size_t sis_mhd_request_header_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

/* Adds an empty Cookie header field to the connection's request; the key and value are
   literals, which outlive every connection as MHD_set_connection_value_n requires. */
static inline enum MHD_Result sis_mhd_add_empty_cookie_field(struct MHD_Connection *connection) {
    return MHD_set_connection_value_n(connection, MHD_HEADER_KIND, "Cookie", 6, "", 0);
}

/* The port the daemon listens on, or 0. */
static inline int sis_mhd_bind_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : (int)info->port;
}

#endif
