import CCurl

/// `curl_global_init` result; Swift runs a global's initialiser exactly once, thread-safely.
private let curlGlobalInitResult: CURLcode = curl_global_init(sis_curl_global_default())

/// Initialises libcurl before the first handle is made. Cheap after the first call.
func ensureCurlGlobalInit() {
    precondition(curlGlobalInitResult == CURLE_OK, "curl_global_init failed: \(curlGlobalInitResult)")
}
