# Hero images in Cloud Storage behind Cloud CDN, and the HTTPS load balancer in front of
# everything: /assets/* from the bucket (CDN), /p/* from the API through the CDN, the rest
# from the API uncached (keyed routes answer no-store anyway).

resource "google_storage_bucket" "images" {
  #checkov:skip=CKV_GCP_62:Access logs of public hero images go to Cloud CDN's request logs on the load balancer instead.
  #checkov:skip=CKV_GCP_114:Hero images are public by design (public landing pages), so public access is not prevented.
  #checkov:skip=CKV_GCP_78:Objects are content-addressed (slug + digest), so versions would only keep identical bytes.
  name                        = "${var.project_id}-frontdoor-images"
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "inherited"
  force_destroy               = false
  depends_on                  = [google_project_service.apis]

  lifecycle_rule {
    condition {
      num_newer_versions = 3
    }
    action {
      type = "Delete"
    }
  }
}

# Hero images are public by design: they appear on public landing pages.
resource "google_storage_bucket_iam_member" "images_public" {
  #checkov:skip=CKV_GCP_28:Hero images are public assets of public landing pages, served through Cloud CDN.
  bucket = google_storage_bucket.images.name
  role   = "roles/storage.objectViewer"
  member = "allUsers"
}

resource "google_compute_backend_bucket" "images" {
  name        = "frontdoor-images"
  bucket_name = google_storage_bucket.images.name
  enable_cdn  = true

  cdn_policy {
    cache_mode        = "USE_ORIGIN_HEADERS"
    serve_while_stale = 86400
  }
}

resource "google_compute_region_network_endpoint_group" "api" {
  name                  = "frontdoor-api"
  region                = var.region
  network_endpoint_type = "SERVERLESS"

  cloud_run {
    service = google_cloud_run_v2_service.api.name
  }
}

# Cloud Armor counts per client address across every Cloud Run instance, in front of the
# app's own limits, which each instance counts for itself (per key; content-api.md).
resource "google_compute_security_policy" "edge" {
  name        = "frontdoor-edge"
  description = "Rate limit per client IP at the edge, in front of the app's own limits."

  rule {
    action   = "throttle"
    priority = 1000
    match {
      versioned_expr = "SRC_IPS_V1"
      config {
        src_ip_ranges = ["*"]
      }
    }
    rate_limit_options {
      conform_action = "allow"
      exceed_action  = "deny(429)"
      enforce_on_key = "IP"
      rate_limit_threshold {
        count        = var.edge_rate_limit_per_minute
        interval_sec = 60
      }
    }
    description = "Requests a minute per client IP, across all instances"
  }

  rule {
    action      = "deny(403)"
    priority    = 900
    description = "Log4j (CVE-2021-44228) lookups"
    match {
      expr {
        expression = "evaluatePreconfiguredWaf('cve-canary')"
      }
    }
  }

  rule {
    action   = "allow"
    priority = 2147483647
    match {
      versioned_expr = "SRC_IPS_V1"
      config {
        src_ip_ranges = ["*"]
      }
    }
    description = "default"
  }
}

# The API without CDN: every route but /p/ and /assets/.
resource "google_compute_backend_service" "api" {
  name                  = "frontdoor-api"
  load_balancing_scheme = "EXTERNAL_MANAGED"
  protocol              = "HTTPS"
  security_policy       = google_compute_security_policy.edge.id

  backend {
    group = google_compute_region_network_endpoint_group.api.id
  }

  log_config {
    enable      = true
    sample_rate = 1.0
  }
}

# The same API behind Cloud CDN for the landing pages (they send public s-maxage and ETag;
# a change purges /p/{slug} through the CDN port). A page running an experiment answers each
# visitor their own arm as `Cache-Control: private`, which the CDN never stores; its assignment
# cookie (fd_aid: an id and the arm it records, set on that page's path alone) is in the cache
# key as well, so no cached answer could ever reach a visitor of another assignment or arm.
# Pages without an experiment never see the cookie, so their cache is shared as before.
resource "google_compute_backend_service" "pages" {
  name                  = "frontdoor-pages"
  load_balancing_scheme = "EXTERNAL_MANAGED"
  protocol              = "HTTPS"
  enable_cdn            = true
  security_policy       = google_compute_security_policy.edge.id

  cdn_policy {
    cache_mode        = "USE_ORIGIN_HEADERS"
    serve_while_stale = 3600
    cache_key_policy {
      include_host          = true
      include_protocol      = true
      include_query_string  = true
      include_named_cookies = ["fd_aid"]
    }
  }

  backend {
    group = google_compute_region_network_endpoint_group.api.id
  }

  log_config {
    enable      = true
    sample_rate = 1.0
  }
}

resource "google_compute_url_map" "https" {
  name            = "frontdoor"
  default_service = google_compute_backend_service.api.id

  host_rule {
    hosts        = [var.domain]
    path_matcher = "site"
  }

  path_matcher {
    name            = "site"
    default_service = google_compute_backend_service.api.id

    route_rules {
      priority = 1
      match_rules {
        prefix_match = "/assets/"
      }
      # Objects are named without the /assets/ prefix (BLOBS_PUBLIC_BASE_URL ends in /assets).
      route_action {
        url_rewrite {
          path_prefix_rewrite = "/"
        }
      }
      service = google_compute_backend_bucket.images.id
    }

    route_rules {
      priority = 2
      match_rules {
        prefix_match = "/p/"
      }
      service = google_compute_backend_service.pages.id
    }
  }
}

resource "google_compute_global_address" "site" {
  name = "frontdoor"
}

resource "google_compute_managed_ssl_certificate" "site" {
  name = "frontdoor"
  managed {
    domains = [var.domain]
  }
}

resource "google_compute_ssl_policy" "modern" {
  name            = "frontdoor-modern"
  profile         = "MODERN"
  min_tls_version = "TLS_1_2"
}

resource "google_compute_target_https_proxy" "site" {
  name             = "frontdoor"
  url_map          = google_compute_url_map.https.id
  ssl_certificates = [google_compute_managed_ssl_certificate.site.id]
  ssl_policy       = google_compute_ssl_policy.modern.id
}

resource "google_compute_global_forwarding_rule" "https" {
  name                  = "frontdoor-https"
  load_balancing_scheme = "EXTERNAL_MANAGED"
  ip_address            = google_compute_global_address.site.address
  port_range            = "443"
  target                = google_compute_target_https_proxy.site.id
}

# Plain HTTP only redirects to HTTPS.
resource "google_compute_url_map" "http_redirect" {
  name = "frontdoor-http-redirect"
  default_url_redirect {
    https_redirect         = true
    redirect_response_code = "MOVED_PERMANENTLY_DEFAULT"
    strip_query            = false
  }
}

resource "google_compute_target_http_proxy" "redirect" {
  name    = "frontdoor-http-redirect"
  url_map = google_compute_url_map.http_redirect.id
}

resource "google_compute_global_forwarding_rule" "http" {
  name                  = "frontdoor-http"
  load_balancing_scheme = "EXTERNAL_MANAGED"
  ip_address            = google_compute_global_address.site.address
  port_range            = "80"
  target                = google_compute_target_http_proxy.redirect.id
}
