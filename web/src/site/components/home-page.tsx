import { useLocation } from '@/shared/router/router';
import { AboutPromises } from './about-promises';
import { Banner } from './banner';
import { ContactSection } from './contact-section';
import { LoanSteps } from './loan-steps';
import { OfferSummary } from './offer-summary';
import { tabFromHash } from './top-bar';

export function HomePage() {
  const tab = tabFromHash(useLocation().hash);
  return (
    <>
      <div role="tabpanel" id="panel-home" aria-labelledby="tab-home" hidden={tab !== 'home'} className="panel">
        <Banner />
        <OfferSummary />
        <LoanSteps />
        <AboutPromises headingKey="about.title" withLink />
      </div>
      <div role="tabpanel" id="panel-contact" aria-labelledby="tab-contact" hidden={tab !== 'contact'} className="panel">
        <ContactSection />
      </div>
    </>
  );
}
